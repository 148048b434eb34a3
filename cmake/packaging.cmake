# What `cmake --install` puts where, and the Debian package CPack makes of it
# (`make package`; docs/operations.md). The layout is the one the binary finds on its
# own, relative to itself, so an installed agentry needs no variables:
#   bin/agentry (and its agent-runner link)
#   lib/agentry/plugins/*.so        plugin_registry.cpp: <bin>/../lib/agentry/plugins
#   share/agentry/web/              cli/paths.cpp: <bin>/../share/agentry/web (web/dist)
#   share/agentry/hook-host.mjs     cli/local_stack.cpp
#   share/agentry/config/           the example definitions (doctor points at them)
#   lib/systemd/user/agentry.service
# Everything is in the component "agentry", the only one packaged.
include(GNUInstallDirs)

# `install` must not build every test and benchmark first: the package needs only what is
# installed below, and `make package` builds exactly that.
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(AGENTRY_PACKAGED_PLUGINS
  agentry_plugin_acp agentry_plugin_browser agentry_plugin_claude agentry_plugin_codex
  agentry_plugin_cursor agentry_plugin_mock agentry_plugin_pi agentry_plugin_subprocess)
# The targets a package holds, for `cmake --build --target agentry_package_contents`.
add_custom_target(agentry_package_contents DEPENDS agentry ${AGENTRY_PACKAGED_PLUGINS})

install(TARGETS agentry RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT agentry)
install(CODE "execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink agentry
                \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/agent-runner\")"
        COMPONENT agentry)
install(TARGETS ${AGENTRY_PACKAGED_PLUGINS} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/agentry/plugins
        COMPONENT agentry)
# The built dashboard (scripts/build-web.sh writes web/dist; `make package` runs it). A
# package built without it serves the page that says the dashboard is missing.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/web/dist/ DESTINATION ${CMAKE_INSTALL_DATADIR}/agentry/web
        COMPONENT agentry OPTIONAL)
install(FILES ${PROJECT_SOURCE_DIR}/share/agentry/hook-host.mjs DESTINATION ${CMAKE_INSTALL_DATADIR}/agentry
        COMPONENT agentry)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/config/ DESTINATION ${CMAKE_INSTALL_DATADIR}/agentry/config
        COMPONENT agentry)
# The unit names the binary where the package puts it (CPack stages the install under a
# temporary prefix, so CMAKE_INSTALL_PREFIX at install time would be that one).
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(AGENTRY_PACKAGED_BINARY ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/agentry)
configure_file(${CMAKE_CURRENT_LIST_DIR}/agentry.service.in ${PROJECT_BINARY_DIR}/packaging/agentry.service @ONLY)
# lib/systemd/user, not ${CMAKE_INSTALL_LIBDIR} (lib/x86_64-linux-gnu): where systemd looks.
install(FILES ${PROJECT_BINARY_DIR}/packaging/agentry.service DESTINATION lib/systemd/user COMPONENT agentry)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME agentry)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "agentry maintainers <agentry@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "daemon and CLI that run AI agents as durable, observable, resumable runs")
set(CPACK_STRIP_FILES ON)
set(CPACK_COMPONENTS_ALL agentry)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends: the shared libraries the binary and plugins link (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libgit2 is opened, not linked (host/src/workspace/libgit2.hpp), so dpkg-shlibdeps cannot
# see it: named here. libpq5 likewise, and only a PostgreSQL store needs it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libgit2-1.5")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "git, libpq5")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "chromium, nodejs, podman, bubblewrap, postgresql")
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/package)
include(CPack)
