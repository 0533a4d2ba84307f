#!/bin/bash
# The deb's postrm (electron-builder.yml deb.afterRemove): electron-builder's own steps (its
# after-remove template), then Ferry's engine host: on remove, the unit stopped (the engine
# disconnects cleanly, removing its firewall rules) and removed with the netcli link; on purge,
# also the engine's state (configuration, device keys, sign-in) and the group. An upgrade
# (postrm upgrade) keeps everything: the new version's postinst restarts the engine.
# electron-builder fills in the dollar-brace macros and refuses any other: shell variables
# here are written without braces.

if type update-alternatives >/dev/null 2>&1; then
    update-alternatives --remove '${executable}' '/opt/${sanitizedProductName}/${executable}'
else
    rm -f '/usr/bin/${executable}'
fi

APPARMOR_PROFILE_DEST='/etc/apparmor.d/${executable}'
if [ -f "$APPARMOR_PROFILE_DEST" ]; then
  if apparmor_status --enabled > /dev/null 2>&1; then
    if ! { [ -x '/usr/bin/ischroot' ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --remove "$APPARMOR_PROFILE_DEST" || true
    fi
  fi
  rm -f "$APPARMOR_PROFILE_DEST"
fi

# ---- Ferry: the engine host -----------------------------------------------------------------

case "$1" in
    remove|purge)
        if [ -d /run/systemd/system ]; then
            systemctl disable --now ferry-engine.service >/dev/null 2>&1 || true
        fi
        rm -f /lib/systemd/system/ferry-engine.service
        if [ -d /run/systemd/system ]; then
            systemctl daemon-reload || true
        fi
        if [ "$(readlink /usr/bin/netcli 2>/dev/null)" = '/opt/${sanitizedProductName}/resources/linux/netcli' ]; then
            rm -f /usr/bin/netcli
        fi
        ;;
esac

if [ "$1" = purge ]; then
    rm -rf /var/lib/ferry
    if getent group ferry >/dev/null; then
        groupdel ferry || true
    fi
fi
