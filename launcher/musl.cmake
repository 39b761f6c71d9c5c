# The launcher against musl: static glibc runs dozens of CPUID instructions at
# start-up (cache and feature detection), and on a virtual machine each one
# traps to the hypervisor. A static exec hop built with glibc costs ~1.5x a
# bare /bin/true there, one built with musl ~1.1x (docs/bench.md, "The
# floor"). The launcher runs once per agent command, so it is built with
# musl-gcc when that is installed (Debian: musl-tools).
#
#   SANDBOX_LAUNCHER_LIBC=auto   musl when musl-gcc and the kernel headers are
#                                found and the launcher is static, else glibc
#   SANDBOX_LAUNCHER_LIBC=musl   musl or a configure error
#   SANDBOX_LAUNCHER_LIBC=glibc  never musl
#
# The musl launcher is one compiler call over the library's sources and the
# launcher's (musl-gcc cannot share CMake's compiler), with the same warnings.
# The glibc launcher is still built, as sandbox-exec-launcher-glibc, so that
# lint and the sanitizer builds keep seeing launcher/ through CMake.
set(SANDBOX_LAUNCHER_LIBC "auto" CACHE STRING "C library of the launcher: auto, musl or glibc")
set_property(CACHE SANDBOX_LAUNCHER_LIBC PROPERTY STRINGS auto musl glibc)

# The compile and link flags of this build, as a list for musl-gcc: the
# build type's and the user's flags, the directory's compile options (the
# warnings, -Werror), and the executable linker flags.
function(sbx_musl_flags var)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags UNIX_COMMAND
    "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${config}} ${CMAKE_EXE_LINKER_FLAGS}")
  get_directory_property(opts DIRECTORY ${PROJECT_SOURCE_DIR} COMPILE_OPTIONS)
  set(${var} ${flags} ${opts} PARENT_SCOPE)
endfunction()

# musl's include path has no kernel headers: a directory of links to the
# system's linux/, asm/ and asm-generic/ goes after it (-idirafter), so no
# glibc header can be reached. Only the self-contained UAPI headers the
# library uses (seccomp, filter, capability, securebits) are safe this way:
# linux/libc-compat.h assumes glibc, so network or signal UAPI headers would
# clash with musl's own definitions.
function(sbx_musl_kernel_headers kdir)
  file(MAKE_DIRECTORY ${kdir})
  foreach(pair "linux;/usr/include/linux" "asm-generic;/usr/include/asm-generic"
               "asm;${SBX_MUSL_KERNEL_ASM}")
    list(GET pair 0 name)
    list(GET pair 1 target)
    file(CREATE_LINK ${target} ${kdir}/${name} SYMBOLIC)
  endforeach()
endfunction()

set(SBX_MUSL_LAUNCHER OFF)
if(SBX_BACKEND STREQUAL "linux" AND SANDBOX_STATIC_LAUNCHER AND NOT CMAKE_CROSSCOMPILING
   AND NOT SANDBOX_LAUNCHER_LIBC STREQUAL "glibc")
  find_program(SBX_MUSL_GCC musl-gcc)
  set(SBX_MUSL_KERNEL_ASM /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/asm)
  if(SBX_MUSL_GCC AND EXISTS "${SBX_MUSL_GCC}" AND EXISTS /usr/include/linux/seccomp.h
     AND EXISTS ${SBX_MUSL_KERNEL_ASM} AND SBX_HAVE_SECCOMP_PROGRAMS)
    # The flags of this build must suit musl too (a sanitizer, -m32 or a
    # clang-only option would not): a small program with the same flags, the
    # kernel headers the library uses and arithmetic a sanitizer would
    # instrument has to link, or it is glibc.
    sbx_musl_flags(SBX_MUSL_TRY_FLAGS)
    set(try_dir ${PROJECT_BINARY_DIR}/musl-try)
    file(MAKE_DIRECTORY ${try_dir})
    file(WRITE ${try_dir}/try.c "#include <linux/seccomp.h>\n#include <linux/filter.h>\n"
         "#include <linux/capability.h>\n#include <linux/securebits.h>\n#include <stdio.h>\n"
         "int main(int argc, char **argv) {\n"
         "  int x = argc << 3, y = x * argc;\n"
         "  (void)argv; return puts(\"musl\") < 0 || y == x + 1;\n}\n")
    sbx_musl_kernel_headers(${try_dir}/kernel-headers)
    execute_process(
      COMMAND ${SBX_MUSL_GCC} -std=c11 ${SBX_MUSL_TRY_FLAGS} -idirafter ${try_dir}/kernel-headers
              ${try_dir}/try.c -static -o ${try_dir}/try
      RESULT_VARIABLE try_rc OUTPUT_QUIET ERROR_VARIABLE try_err)
    if(try_rc EQUAL 0)
      set(SBX_MUSL_LAUNCHER ON)
    else()
      string(REGEX REPLACE "\n.*" "" try_err "${try_err}")
      message(STATUS "launcher: musl-gcc cannot link with this build's flags (${try_err})")
    endif()
  endif()
endif()
if(SANDBOX_LAUNCHER_LIBC STREQUAL "musl" AND NOT SBX_MUSL_LAUNCHER)
  message(FATAL_ERROR "SANDBOX_LAUNCHER_LIBC=musl: needs a static launcher on Linux, musl-gcc "
                      "(apt-get install musl-tools) and the kernel headers (linux-libc-dev)")
endif()
if(SANDBOX_LAUNCHER_LIBC STREQUAL "auto" AND NOT SBX_MUSL_LAUNCHER AND SBX_BACKEND STREQUAL "linux"
   AND SANDBOX_STATIC_LAUNCHER AND NOT CMAKE_CROSSCOMPILING)
  if(SBX_MUSL_GCC AND EXISTS "${SBX_MUSL_GCC}")
    message(STATUS "launcher: glibc, static (musl-gcc does not suit this build's flags)")
  else()
    message(STATUS "launcher: glibc, static (install musl-tools for a launcher that starts "
                   "~0.4x of /bin/true faster)")
  endif()
endif()

function(sbx_add_musl_launcher out)
  set(kdir ${PROJECT_BINARY_DIR}/musl-kernel-headers)
  sbx_musl_kernel_headers(${kdir})
  get_filename_component(outdir ${out} DIRECTORY)
  file(MAKE_DIRECTORY ${outdir})

  set(sources ${SBX_ALL_SOURCES} ${SBX_GENERATED_SOURCES} ${ARGN})
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/*.h
       ${PROJECT_SOURCE_DIR}/src/*.h ${PROJECT_SOURCE_DIR}/src/*/*.h
       ${PROJECT_SOURCE_DIR}/launcher/*.h)
  sbx_musl_flags(flags)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${SBX_MUSL_GCC} -std=c11 ${flags} -fvisibility=hidden
            -DSANDBOX_BUILDING -DSANDBOX_STATIC
            -DSBX_SCAN_SOURCES_HASH="${SBX_SCAN_SOURCES_HASH}"
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src
            -idirafter ${kdir}
            ${sources} -static -o ${out}
    DEPENDS ${sources} ${headers} ${SBX_GENERATED_DEPENDS}
    COMMENT "Linking the launcher against musl (static)"
    COMMAND_EXPAND_LISTS VERBATIM)
endfunction()
