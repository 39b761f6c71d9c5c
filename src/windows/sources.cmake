# Portable AppContainer plan and command-line quoting: compiled on every host.
set(SBX_WINDOWS_PORTABLE_SOURCES
  ${PROJECT_SOURCE_DIR}/src/windows/explain.c
)
# Windows-only.
set(SBX_WINDOWS_BACKEND_SOURCES
  ${PROJECT_SOURCE_DIR}/src/none/backend.c
)
