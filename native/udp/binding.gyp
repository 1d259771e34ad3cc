{
  "targets": [
    {
      "target_name": "batched_udp",
      "sources": ["batched_udp.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
