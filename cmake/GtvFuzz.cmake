# GTV_FUZZ=ON: instruments every target for libFuzzer (coverage) with AddressSanitizer and UndefinedBehavior-
# Sanitizer, so the fuzz targets in tests/fuzz see crashes and undefined behaviour in the code they call.
# GTV_FUZZ_SANITIZERS picks others: "undefined" alone runs several times faster (long runs that are after
# hangs, aborts, broken invariants and undefined behaviour; memory errors then show only when they crash).
set(GTV_FUZZ_SANITIZERS "address,undefined" CACHE STRING "Sanitizers of the fuzz build (-fsanitize=...)")
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "GTV_FUZZ=ON needs clang (libFuzzer is part of clang), but the C++ compiler is "
                      "${CMAKE_CXX_COMPILER_ID}: configure a fresh build folder with -DCMAKE_CXX_COMPILER=clang++ "
                      "(Debian: apt-get install clang libclang-rt-14-dev), or use scripts/fuzz-smoke")
endif()
add_compile_options(-fsanitize=fuzzer-no-link,${GTV_FUZZ_SANITIZERS} -fno-sanitize-recover=undefined
                    -fno-omit-frame-pointer)
add_link_options(-fsanitize=${GTV_FUZZ_SANITIZERS})
