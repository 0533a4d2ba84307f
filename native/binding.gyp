# node-gyp build of the Ferry data-plane addon: plain C++ core (src/core) plus bindings (src/napi).
{
  "targets": [
    {
      "target_name": "ferry_native",
      "sources": [
        "src/core/crypto.cc",
        "src/core/offload.cc",
        "src/core/protocol.cc",
        "src/core/secret.cc",
        "src/core/tcp-framing.cc",
        "src/core/tls-hello.cc",
        "src/core/tls-records.cc",
        "src/core/tls-template.cc",
        "src/napi/addon.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-O2", "-Wall", "-Wextra"],
      "libraries": ["-lcrypto"],
      "xcode_settings": {"GCC_ENABLE_CPP_EXCEPTIONS": "YES", "CLANG_CXX_LANGUAGE_STANDARD": "c++17"},
      "msvs_settings": {"VCCLCompilerTool": {"ExceptionHandling": 1}},
      "conditions": [
        ["OS=='linux'", {"sources": [
          "src/core/client-engine.cc",
          "src/core/client-paths.cc",
          "src/core/endpoint.cc",
          "src/core/engine-base.cc",
          "src/core/handshake-worker.cc",
          "src/core/marked-socket.cc",
          "src/core/packet-pipe.cc",
          "src/core/peer-registry.cc",
          "src/core/server-engine.cc",
          "src/core/stream-outcome.cc",
          "src/core/tcp-conn.cc",
          "src/core/tls-stream.cc",
          "src/core/tun.linux.cc",
          "src/core/tunnel.cc"
        ]}],
        ["OS!='linux'", {"sources": [
          "src/core/marked-socket.unsupported.cc",
          "src/core/tun.unsupported.cc",
          "src/core/tunnel.unsupported.cc"
        ]}]
      ]
    }
  ]
}
