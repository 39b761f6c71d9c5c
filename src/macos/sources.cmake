# Portable Seatbelt renderer and explain: compiled on every host.
set(SBX_MACOS_PORTABLE_SOURCES
  ${PROJECT_SOURCE_DIR}/src/macos/seatbelt.c
  ${PROJECT_SOURCE_DIR}/src/macos/explain.c
)
# macOS-only: probes, enforce (argv rewrite), spawn.
set(SBX_MACOS_BACKEND_SOURCES
  ${PROJECT_SOURCE_DIR}/src/macos/backend.c
)
