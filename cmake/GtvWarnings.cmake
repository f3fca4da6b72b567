# Warnings for our own targets only (third-party headers are included as SYSTEM).
option(GTV_WERROR "Treat warnings as errors" ON)
function(gtv_set_warnings target)
  # -Wshadow=local is g++'s; -Wshadow-uncaptured-local is clang's nearest (a local hiding another local).
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic
                         $<IF:$<CXX_COMPILER_ID:GNU>,-Wshadow=local,-Wshadow-uncaptured-local> -Wnon-virtual-dtor)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 13)
    # g++ 13 flags every reference bound to the result of a function taking a temporary argument
    # (const Lane& l = lane_of(trace, key)); the references here point into the trace, not the temporary.
    target_compile_options(${target} PRIVATE -Wno-dangling-reference)
  endif()
  if(GTV_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# A static library of one core folder: sources, public include dir, warnings.
function(gtv_add_core_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC_DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include")
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  gtv_set_warnings(${name})
endfunction()
