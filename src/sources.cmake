# Platform-neutral core, compiled on every host.
set(SBX_CORE_SOURCES
  ${PROJECT_SOURCE_DIR}/src/policy.c
  ${PROJECT_SOURCE_DIR}/src/resolve.c
  ${PROJECT_SOURCE_DIR}/src/pathfact.c
  ${PROJECT_SOURCE_DIR}/src/protect.c
  ${PROJECT_SOURCE_DIR}/src/util.c
  ${PROJECT_SOURCE_DIR}/src/home.c
  ${PROJECT_SOURCE_DIR}/src/sandbox.c
  ${PROJECT_SOURCE_DIR}/src/presets.c
  ${PROJECT_SOURCE_DIR}/src/hardlink.c
  ${PROJECT_SOURCE_DIR}/src/describe.c
)
