# Portable AppContainer plan and command-line quoting: compiled on every host.
set(SBX_WINDOWS_PORTABLE_SOURCES
  ${PROJECT_SOURCE_DIR}/src/windows/plan.c
  ${PROJECT_SOURCE_DIR}/src/windows/explain.c
  ${PROJECT_SOURCE_DIR}/src/windows/scan.c
  ${PROJECT_SOURCE_DIR}/src/windows/apply.c
  ${PROJECT_SOURCE_DIR}/src/windows/journal.c
  ${PROJECT_SOURCE_DIR}/src/windows/tools.c
)
# Windows-only: the AppContainer calls.
set(SBX_WINDOWS_BACKEND_SOURCES
  ${PROJECT_SOURCE_DIR}/src/windows/backend.c
)
