# The prebuilt seccomp programs. tools/bpfgen (linked with libseccomp) runs on
# the build host and writes every program variant for every supported arch
# family into a C file; the library compiles that file and never links
# libseccomp. Needed by the Linux backend, and by the unit tests on any host
# that has libseccomp (they simulate every arch family).
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  pkg_check_modules(SBX_LIBSECCOMP QUIET IMPORTED_TARGET libseccomp>=2.5)
endif()

set(SBX_SECCOMP_GENERATED ${PROJECT_BINARY_DIR}/generated/sbx_seccomp_programs.c)

if(CMAKE_CROSSCOMPILING)
  # The generator must run here, so it cannot be built with the target
  # toolchain: point at one built for the build host.
  set(SBX_BPFGEN_EXECUTABLE "" CACHE FILEPATH "bpfgen built for the build host")
  if(SBX_BACKEND STREQUAL "linux" AND NOT SBX_BPFGEN_EXECUTABLE)
    message(FATAL_ERROR "cross-compiling the Linux backend: build tools/bpfgen.c for the "
                        "build host and pass -DSBX_BPFGEN_EXECUTABLE=/path/to/bpfgen")
  endif()
  set(SBX_BPFGEN ${SBX_BPFGEN_EXECUTABLE})
elseif(SBX_LIBSECCOMP_FOUND)
  add_executable(sbx_bpfgen
    ${PROJECT_SOURCE_DIR}/tools/bpfgen.c
    ${PROJECT_SOURCE_DIR}/src/linux/seccomp_rules.c
    ${PROJECT_SOURCE_DIR}/src/util.c)
  target_include_directories(sbx_bpfgen PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(sbx_bpfgen PRIVATE PkgConfig::SBX_LIBSECCOMP)
  set_target_properties(sbx_bpfgen PROPERTIES OUTPUT_NAME bpfgen
                        RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tools)
  set(SBX_BPFGEN $<TARGET_FILE:sbx_bpfgen>)
elseif(SBX_BACKEND STREQUAL "linux")
  message(FATAL_ERROR "the Linux backend needs libseccomp (>= 2.5) at build time to generate "
                      "its seccomp programs: apt-get install libseccomp-dev pkg-config")
endif()

if(SBX_BPFGEN)
  add_custom_command(
    OUTPUT ${SBX_SECCOMP_GENERATED}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/generated
    COMMAND ${SBX_BPFGEN} --c ${SBX_SECCOMP_GENERATED}
    DEPENDS ${SBX_BPFGEN} ${PROJECT_SOURCE_DIR}/src/linux/seccomp_rules.c
            ${PROJECT_SOURCE_DIR}/src/linux/seccomp_rules.h
    COMMENT "Generating the seccomp programs"
    VERBATIM)
  add_custom_target(sbx_seccomp_programs DEPENDS ${SBX_SECCOMP_GENERATED})
  list(APPEND SBX_GENERATED_SOURCES ${SBX_SECCOMP_GENERATED})
  list(APPEND SBX_GENERATED_INCLUDE_DIRS ${PROJECT_SOURCE_DIR}/src)
  list(APPEND SBX_GENERATED_DEPENDS sbx_seccomp_programs)
  set(SBX_HAVE_SECCOMP_PROGRAMS ON)
endif()
