# Portable Seatbelt renderer: compiled on every host.
set(SBX_MACOS_PORTABLE_SOURCES
  ${PROJECT_SOURCE_DIR}/src/macos/explain.c
)
# macOS-only.
set(SBX_MACOS_BACKEND_SOURCES
  ${PROJECT_SOURCE_DIR}/src/none/backend.c
)
