# Portable Linux plan code (rule tables, explain): compiled on every host.
set(SBX_LINUX_PORTABLE_SOURCES
  ${PROJECT_SOURCE_DIR}/src/linux/explain.c
  ${PROJECT_SOURCE_DIR}/src/linux/seccomp_rules.c
  ${PROJECT_SOURCE_DIR}/src/linux/landlock_rules.c
  ${PROJECT_SOURCE_DIR}/src/linux/caps_rules.c
  ${PROJECT_SOURCE_DIR}/src/linux/sysdecode.c
  ${PROJECT_SOURCE_DIR}/src/linux/records.c
)
# Linux-only: system calls.
set(SBX_LINUX_BACKEND_SOURCES
  ${PROJECT_SOURCE_DIR}/src/linux/backend.c
  ${PROJECT_SOURCE_DIR}/src/linux/seccomp.c
  ${PROJECT_SOURCE_DIR}/src/linux/landlock.c
  ${PROJECT_SOURCE_DIR}/src/linux/caps.c
  ${PROJECT_SOURCE_DIR}/src/linux/mask.c
  ${PROJECT_SOURCE_DIR}/src/linux/unixep.c
  ${PROJECT_SOURCE_DIR}/src/linux/rootfs.c
  ${PROJECT_SOURCE_DIR}/src/linux/spawn.c
  ${PROJECT_SOURCE_DIR}/src/linux/guard.c
  ${PROJECT_SOURCE_DIR}/src/linux/guardwork.c
  ${PROJECT_SOURCE_DIR}/src/linux/guardlock.c
  ${PROJECT_SOURCE_DIR}/src/linux/reslimits.c
  ${PROJECT_SOURCE_DIR}/src/linux/supervisor.c
  ${PROJECT_SOURCE_DIR}/src/linux/refusal.c
  ${PROJECT_SOURCE_DIR}/src/linux/proctree.c
  ${PROJECT_SOURCE_DIR}/src/linux/scanwatch.c
)
