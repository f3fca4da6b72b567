# What `cmake --install` places, and the Debian package made from it (docs/packaging.md):
#   bin/gtv, bin/gtv-cli                    the programs
#   libexec/gtv/gtv-run                     the experiment runner (LibTorch builds), started by gtv-cli run and gtv
#   libexec/gtv/libgtv-inject.so            the recorder gtv-cli record injects into programs (CUPTI builds)
#   share/gtv/traces, share/gtv/scenarios   the bundled recordings and the scenario texts
#   share/applications, share/icons, share/metainfo, share/man/man1, share/doc/gtv
# The programs find share/gtv and libexec/gtv relative to their own bin/ (gtv/base/install_layout.h), so an
# installed tree works under any prefix and without the source tree.
set(GTV_APP_ID io.github.gtv.Gtv)
set(gtv_desktop_dir "${PROJECT_SOURCE_DIR}/resources/desktop")

install(TARGETS gtv-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET gtv)
  install(TARGETS gtv RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
if(TARGET gtv-run)
  install(TARGETS gtv-run RUNTIME DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gtv)
endif()
if(TARGET gtv_inject)
  install(TARGETS gtv_inject LIBRARY DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/gtv)
endif()

install(DIRECTORY "${PROJECT_SOURCE_DIR}/resources/traces/" DESTINATION ${CMAKE_INSTALL_DATADIR}/gtv/traces)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/resources/scenarios/" DESTINATION ${CMAKE_INSTALL_DATADIR}/gtv/scenarios)
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")

if(TARGET gtv)
  install(FILES "${gtv_desktop_dir}/${GTV_APP_ID}.desktop" DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES "${gtv_desktop_dir}/${GTV_APP_ID}.svg"
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES "${gtv_desktop_dir}/${GTV_APP_ID}.metainfo.xml" DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
endif()

# Man pages, written at build time from each program's --help (cmake/gtv_manpage.py), so they change when the help
# does: each page depends on its program's binary. Installed gzipped, as Debian keeps man pages.
find_package(Python3 COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  set(gtv_man_dir "${CMAKE_BINARY_DIR}/man")
  set(gtv_man_pages)
  # gtv_add_man_page(TARGET SUMMARY SEE_ALSO [ARGS...]): man/TARGET.1 and man/TARGET.1.gz.
  function(gtv_add_man_page target summary see_also)
    add_custom_command(
      OUTPUT "${gtv_man_dir}/${target}.1" "${gtv_man_dir}/${target}.1.gz"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${gtv_man_dir}"
      COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/cmake/gtv_manpage.py" --program $<TARGET_FILE:${target}>
              --name ${target} --summary ${summary} --version ${PROJECT_VERSION} --see-also ${see_also}
              --output "${gtv_man_dir}/${target}.1" ${ARGN}
      DEPENDS ${target} "${PROJECT_SOURCE_DIR}/cmake/gtv_manpage.py"
      COMMENT "Writing the man page ${target}.1 from ${target} --help"
      VERBATIM)
    install(FILES "${gtv_man_dir}/${target}.1.gz" DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
    set(gtv_man_pages ${gtv_man_pages} "${gtv_man_dir}/${target}.1" PARENT_SCOPE)
  endfunction()
  gtv_add_man_page(gtv-cli "inspect, convert, analyze and compare GPU traces, and record experiments"
                   "gtv(1), and the README and docs in share/doc/gtv under the installation prefix" --commands)
  if(TARGET gtv)
    gtv_add_man_page(gtv "GPU Timeline Visualizer: timelines and verdicts of GPU traces"
                     "gtv-cli(1), and the README and docs in share/doc/gtv under the installation prefix")
  endif()
  add_custom_target(gtv_man_pages ALL DEPENDS ${gtv_man_pages})
else()
  message(WARNING "gtv: no Python 3 interpreter: the man pages are not built or installed")
endif()

# The Debian package (cpack -G DEB in the build folder): one package, gtv, with what is installed above.
# dpkg-shlibdeps (package dpkg-dev) derives the dependencies from the libraries the programs link.
set(GTV_PACKAGE_MAINTAINER "gtv maintainers <maintainers@users.noreply.a-seed-b379d3f9.example>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_NAME gtv)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR gtv)
set(CPACK_PACKAGE_CONTACT "${GTV_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "GPU Timeline Visualizer: did the GPUs really run at the same time?")
# One paragraph (set() with several strings would make a list, whose ';' would show in the description).
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "gtv draws a recorded GPU trace as a timeline (a lane per GPU stream with every kernel and copy, a lane per "
       "host thread with the CUDA API calls and PyTorch operators that launched them) and states how long the GPUs "
       "overlapped, why a GPU was idle, where the host blocked and what each stopwatch measured. It reads PyTorch "
       "profiler traces (Chrome trace JSON, plain or gzip). The package holds the desktop program gtv, the command "
       "line gtv-cli and recordings made on two NVIDIA H200 GPUs.")
if(TARGET gtv-run)
  string(APPEND CPACK_PACKAGE_DESCRIPTION
         " Its experiment runner gtv-run (gtv-cli run, and the run panel of gtv) uses LibTorch.")
endif()
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
include(CPack)
