include(GoogleTest)
# One GoogleTest binary per module. Tests find fixtures through GTV_TEST_DATA_DIR and GTV_SOURCE_DIR.
# LABELS: the ctest label of every test in the binary (default "unit"; "gpu" for tests that need a GPU).
function(gtv_add_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main gtv_config)
  target_compile_definitions(${name} PRIVATE GTV_TEST_DATA_DIR="${PROJECT_SOURCE_DIR}/tests/data"
                                             GTV_BINARY_DIR="${PROJECT_BINARY_DIR}")
  gtv_set_warnings(${name})
  # One label per binary: gtest_discover_tests cannot carry a list in PROPERTIES (it splits on ';').
  set(label unit)
  if(ARG_LABELS)
    list(GET ARG_LABELS 0 label)
  endif()
  gtest_discover_tests(${name} PROPERTIES LABELS ${label} DISCOVERY_TIMEOUT 60)
endfunction()
