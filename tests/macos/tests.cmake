# Checks of the macOS plan that run on any host. Included from
# tests/CMakeLists.txt. The guile checker is optional: registered only when
# guile is installed (Debian: apt-get install guile-3.0).
find_program(SBX_GUILE NAMES guile-3.0 guile)
if(SBX_GUILE)
  add_test(NAME macos.sbpl_guile
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/macos/test_sbpl_guile.sh)
  set_tests_properties(macos.sbpl_guile PROPERTIES LABELS "unit;macos"
                       ENVIRONMENT "${SBX_TEST_ENV};SBX_GUILE=${SBX_GUILE}"
                       SKIP_RETURN_CODE 77)
else()
  message(STATUS "guile not found: the SBPL structure check (macos.sbpl_guile) is not registered")
endif()
