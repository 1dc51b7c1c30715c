# The installed layout, relative to the installation prefix. The core compiles
# these into build_config.hpp (install_layout.cpp finds everything relative to
# the running executable), and packaging/ installs into them, so the two agree.
include(GNUInstallDirs)
set(ATTNLAB_INSTALL_BINDIR ${CMAKE_INSTALL_BINDIR})                 # attnlab
set(ATTNLAB_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/attnlab)       # exercises/
set(ATTNLAB_INSTALL_PKGLIBDIR lib/attnlab)                          # include/, libattnlab_learner.a
set(ATTNLAB_INSTALL_LIBEXECDIR ${CMAKE_INSTALL_LIBEXECDIR}/attnlab) # attnlab-sandbox
foreach(dir ATTNLAB_INSTALL_BINDIR ATTNLAB_INSTALL_DATADIR ATTNLAB_INSTALL_LIBEXECDIR)
  if(IS_ABSOLUTE "${${dir}}")
    message(FATAL_ERROR "attnlab: ${dir} is ${${dir}}; it must be relative to the prefix so an installed attnlab can be moved")
  endif()
endforeach()
