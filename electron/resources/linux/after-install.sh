#!/bin/bash
# The deb's postinst (electron-builder.yml deb.afterInstall): electron-builder's own steps (its
# after-install template: the /usr/bin link, chrome-sandbox, the desktop database, AppArmor),
# then Ferry's engine host: netcli on the PATH, the group `ferry` that may use the engine's
# socket, and the systemd unit, enabled and (re)started.
# electron-builder fills in the dollar-brace macros (executable, sanitizedProductName) and
# refuses any other: shell variables here are written without braces.

if type update-alternatives >/dev/null 2>&1; then
    # Remove previous link if it doesn't use update-alternatives
    if [ -L '/usr/bin/${executable}' -a -e '/usr/bin/${executable}' -a "`readlink '/usr/bin/${executable}'`" != '/etc/alternatives/${executable}' ]; then
        rm -f '/usr/bin/${executable}'
    fi
    update-alternatives --install '/usr/bin/${executable}' '${executable}' '/opt/${sanitizedProductName}/${executable}' 100 || ln -sf '/opt/${sanitizedProductName}/${executable}' '/usr/bin/${executable}'
else
    ln -sf '/opt/${sanitizedProductName}/${executable}' '/usr/bin/${executable}'
fi

# Check if user namespaces are supported by the kernel and working with a quick test:
if ! { [[ -L /proc/self/ns/user ]] && unshare --user true; }; then
    # Use SUID chrome-sandbox only on systems without user namespaces:
    chmod 4755 '/opt/${sanitizedProductName}/chrome-sandbox' || true
else
    chmod 0755 '/opt/${sanitizedProductName}/chrome-sandbox' || true
fi

if hash update-mime-database 2>/dev/null; then
    update-mime-database /usr/share/mime || true
fi

if hash update-desktop-database 2>/dev/null; then
    update-desktop-database /usr/share/applications || true
fi

if apparmor_status --enabled > /dev/null 2>&1; then
  APPARMOR_PROFILE_SOURCE='/opt/${sanitizedProductName}/resources/apparmor-profile'
  APPARMOR_PROFILE_TARGET='/etc/apparmor.d/${executable}'
  if apparmor_parser --skip-kernel-load --debug "$APPARMOR_PROFILE_SOURCE" > /dev/null 2>&1; then
    cp -f "$APPARMOR_PROFILE_SOURCE" "$APPARMOR_PROFILE_TARGET"
    if ! { [ -x '/usr/bin/ischroot' ] && /usr/bin/ischroot; } && hash apparmor_parser 2>/dev/null; then
      apparmor_parser --replace --write-cache --skip-read-cache "$APPARMOR_PROFILE_TARGET"
    fi
  else
    echo "Skipping the installation of the AppArmor profile as this version of AppArmor does not seem to support the bundled profile"
  fi
fi

# ---- Ferry: the engine host -----------------------------------------------------------------

APP_DIR='/opt/${sanitizedProductName}'
LINUX_DIR="$APP_DIR/resources/linux"
UNIT=/lib/systemd/system/ferry-engine.service

chmod 0755 "$LINUX_DIR/netcli"
# netcli on the PATH, unless another netcli is there already (a file, not our link).
if [ ! -e /usr/bin/netcli ] || [ -L /usr/bin/netcli ]; then
    ln -sf "$LINUX_DIR/netcli" /usr/bin/netcli
fi

# Root and the members of `ferry` may use the engine's socket (0660).
if ! getent group ferry >/dev/null; then
    groupadd --system ferry
fi
# Whoever installs with sudo is let in (from their next login).
if [ -n "$SUDO_USER" ] && [ "$SUDO_USER" != root ] && id "$SUDO_USER" >/dev/null 2>&1; then
    if usermod -aG ferry "$SUDO_USER"; then
        echo "Ferry: $SUDO_USER may now use the engine (log out and in again for it to apply)."
    fi
fi

sed "s|@APP_DIR@|$APP_DIR|g" "$LINUX_DIR/ferry-engine.service" > "$UNIT"
chmod 0644 "$UNIT"
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload || true
    systemctl enable ferry-engine.service || true
    # A new install starts it; an upgrade restarts it on the new version.
    systemctl restart ferry-engine.service || true
else
    echo "Ferry: no systemd here; start the engine with: sudo netcli daemon"
fi
