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

set(SBX_MUSL_LAUNCHER OFF)
if(SBX_BACKEND STREQUAL "linux" AND SANDBOX_STATIC_LAUNCHER AND NOT CMAKE_CROSSCOMPILING
   AND NOT SANDBOX_LAUNCHER_LIBC STREQUAL "glibc")
  find_program(SBX_MUSL_GCC musl-gcc)
  # musl's include path has no kernel headers: a directory of links to the
  # system's (linux/, asm/, asm-generic/) is put after it.
  set(SBX_MUSL_KERNEL_ASM /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/asm)
  if(SBX_MUSL_GCC AND EXISTS /usr/include/linux/seccomp.h AND EXISTS ${SBX_MUSL_KERNEL_ASM}
     AND SBX_HAVE_SECCOMP_PROGRAMS)
    set(SBX_MUSL_LAUNCHER ON)
  endif()
endif()
if(SANDBOX_LAUNCHER_LIBC STREQUAL "musl" AND NOT SBX_MUSL_LAUNCHER)
  message(FATAL_ERROR "SANDBOX_LAUNCHER_LIBC=musl: needs a static launcher on Linux, musl-gcc "
                      "(apt-get install musl-tools) and the kernel headers (linux-libc-dev)")
endif()
if(SANDBOX_LAUNCHER_LIBC STREQUAL "auto" AND NOT SBX_MUSL_LAUNCHER AND SBX_BACKEND STREQUAL "linux"
   AND SANDBOX_STATIC_LAUNCHER AND NOT CMAKE_CROSSCOMPILING)
  message(STATUS "launcher: glibc (install musl-tools for a launcher that starts ~0.4x of "
                 "/bin/true faster)")
endif()

function(sbx_add_musl_launcher out)
  set(kdir ${PROJECT_BINARY_DIR}/musl-kernel-headers)
  file(MAKE_DIRECTORY ${kdir})
  get_filename_component(outdir ${out} DIRECTORY)
  file(MAKE_DIRECTORY ${outdir})
  foreach(pair "linux;/usr/include/linux" "asm-generic;/usr/include/asm-generic"
               "asm;${SBX_MUSL_KERNEL_ASM}")
    list(GET pair 0 name)
    list(GET pair 1 target)
    file(CREATE_LINK ${target} ${kdir}/${name} SYMBOLIC)
  endforeach()

  set(sources ${SBX_ALL_SOURCES} ${SBX_GENERATED_SOURCES} ${ARGN})
  file(GLOB headers ${PROJECT_SOURCE_DIR}/include/*.h ${PROJECT_SOURCE_DIR}/src/*.h
       ${PROJECT_SOURCE_DIR}/src/*/*.h ${PROJECT_SOURCE_DIR}/launcher/*.h)
  string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
  separate_arguments(flags UNIX_COMMAND "${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${config}}")
  set(warnings -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla)
  if(SANDBOX_WERROR)
    list(APPEND warnings -Werror)
  endif()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${SBX_MUSL_GCC} -std=c11 ${flags} ${warnings} -fvisibility=hidden
            -DSANDBOX_BUILDING -DSANDBOX_STATIC
            -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src
            -idirafter ${kdir}
            ${sources} -static -o ${out}
    DEPENDS ${sources} ${headers} ${SBX_GENERATED_DEPENDS}
    COMMENT "Linking the launcher against musl (static)"
    COMMAND_EXPAND_LISTS VERBATIM)
endfunction()
