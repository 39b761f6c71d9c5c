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
  ${PROJECT_SOURCE_DIR}/src/reads.c
  ${PROJECT_SOURCE_DIR}/src/hardlink.c
  ${PROJECT_SOURCE_DIR}/src/scanindex.c
  ${PROJECT_SOURCE_DIR}/src/scanledger.c
  ${PROJECT_SOURCE_DIR}/src/describe.c
  ${PROJECT_SOURCE_DIR}/src/caches.c
  ${PROJECT_SOURCE_DIR}/src/env.c
  ${PROJECT_SOURCE_DIR}/src/outcome.c
)

# The pre-flight index is keyed by the code that decides a scan's answer, so
# an index written by other code is never trusted (src/scanindex.c). A
# change to these files reconfigures and recompiles scanindex.c alone.
set(SBX_SCAN_SOURCE_FILES
  ${PROJECT_SOURCE_DIR}/src/protect.c
  ${PROJECT_SOURCE_DIR}/src/hardlink.c
  ${PROJECT_SOURCE_DIR}/src/scanindex.c
  ${PROJECT_SOURCE_DIR}/src/scanledger.c
  ${PROJECT_SOURCE_DIR}/src/linux/mask.c)
set(sbx_scan_digests "")
foreach(f ${SBX_SCAN_SOURCE_FILES})
  file(SHA256 ${f} sbx_one)
  string(APPEND sbx_scan_digests ${sbx_one})
endforeach()
string(SHA256 SBX_SCAN_SOURCES_HASH "${sbx_scan_digests}")
string(SUBSTRING ${SBX_SCAN_SOURCES_HASH} 0 16 SBX_SCAN_SOURCES_HASH)
set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${SBX_SCAN_SOURCE_FILES})
set_source_files_properties(${PROJECT_SOURCE_DIR}/src/scanindex.c PROPERTIES
  COMPILE_DEFINITIONS SBX_SCAN_SOURCES_HASH="${SBX_SCAN_SOURCES_HASH}")
