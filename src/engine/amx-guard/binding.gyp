{
  "targets": [
    {
      "target_name": "amx_guard",
      "sources": ["amx_guard.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
