# The default deck's bathymetry, inputs/estuary/bathymetry.asc, is generated (scripts/make_estuary.py,
# about 7 MB, so not committed). Building shwa makes it where it is missing or older than the
# script, so that `shwa check inputs/estuary.toml` and `shwa run inputs/estuary.toml` work on a
# fresh clone as soon as shwa is built. The script also writes the committed inputs/estuary/tide.csv,
# with the same bytes. Without Python 3 the file is left to scripts/run-estuary.sh, which makes it
# before it runs the deck; configuring says so.
#   SHWA_DEFAULT_DECK_BATHYMETRY   the file, where the build makes it (else undefined)

find_package(Python3 COMPONENTS Interpreter QUIET)
set(_shwa_estuary_bathymetry ${PROJECT_SOURCE_DIR}/inputs/estuary/bathymetry.asc)
if(Python3_Interpreter_FOUND)
  add_custom_command(
    OUTPUT ${_shwa_estuary_bathymetry}
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/make_estuary.py
            --out ${PROJECT_SOURCE_DIR}/inputs/estuary
    DEPENDS ${PROJECT_SOURCE_DIR}/scripts/make_estuary.py
    COMMENT "Making the default deck's bathymetry, inputs/estuary/bathymetry.asc (scripts/make_estuary.py)"
    VERBATIM)
  add_custom_target(shwa_default_deck ALL DEPENDS ${_shwa_estuary_bathymetry})
  set(SHWA_DEFAULT_DECK_BATHYMETRY ${_shwa_estuary_bathymetry})
else()
  message(STATUS "shwa: inputs/estuary/bathymetry.asc: not made by the build (no python3); "
                 "scripts/run-estuary.sh makes it, or: python3 scripts/make_estuary.py")
endif()
