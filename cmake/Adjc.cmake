# Adjc.cmake: differentiate NumPy and Fortran kernels with adjc in a CMake build.
#
#     list(APPEND CMAKE_MODULE_PATH /path/to/adjc/cmake)   # or: include(/path/to/Adjc.cmake)
#     include(Adjc)
#     adjc_add_adjoint(smooth_ad SOURCES kernels/smooth.py WRT x)
#     add_executable(app app.c)
#     target_link_libraries(app PRIVATE smooth_ad)        # app.c: #include "smooth.h"
#
# adjc_add_adjoint(<target>
#     SOURCES <entry source> [<more Fortran files> ...]
#     [FUNCTION <name>] [WRT <input> ...] [OF <output> ...] [NAME <stem>]
#     [INCLUDE_DIRECTORIES <dir> ...] [DEFINES <NAME[=VALUE]> ...]
#     [FORTRAN_INTERFACE] [BLAS none|cblas|mkl] [NO_OPENMP]
#     [OUTPUT_DIRECTORY <dir>] [FLAGS <more adjc transpile flags> ...])
#
# makes a static library <target> from `<stem>.c`, which `adjc transpile` writes (with
# `<stem>.h`) into OUTPUT_DIRECTORY (default: ${CMAKE_CURRENT_BINARY_DIR}/<target>). Linking
# <target> gives its users the include directory of `<stem>.h`, OpenMP (FindOpenMP), BLAS
# (FindBLAS, for BLAS cblas or mkl) and libm. The generation step has adjc's dependency file
# as its DEPFILE, so an edit of the source, of a module it `use`s (found next to it or in
# INCLUDE_DIRECTORIES), of an `include`d file or of a cpp `#include` reruns adjc; adjc
# rewrites a generated file only when its content changes. With FORTRAN_INTERFACE the
# library also holds `<stem>_adjc.f90` (bind(C) interfaces; the project must enable
# Fortran) and, for a Fortran kernel, `<stem>_adjc_wrap.f90` (the drop-in wrappers:
# `call heat_b(n, nsteps, u, u_b, flux, flux_b)` with the routine's own arguments); its users
# get the directory of the `.mod` files: `use <stem>_adjc`, `use <stem>_adjc_wrap`. (When
# the routine uses derived types or variables of the project's modules, the wrappers `use`
# them: link the library that builds those modules into <target>.)
#
# The relative paths of SOURCES and INCLUDE_DIRECTORIES are taken from the current source
# directory. adjc is looked up on the PATH (and in ADJC_ROOT/bin); set ADJC_EXECUTABLE to
# choose it. Per-project defaults: ADJC_BLAS (none), ADJC_OPENMP (ON).
#
# The flags of the generated C come from `adjc config --cflags` (run once at configure time),
# so CMake and make builds compile it the same way.

cmake_minimum_required(VERSION 3.20) # DEPFILE of add_custom_command with Makefile generators

find_program(ADJC_EXECUTABLE NAMES adjc HINTS ENV ADJC_ROOT PATH_SUFFIXES bin
    DOC "The adjc source-to-source AD compiler")
set(ADJC_BLAS "none" CACHE STRING "BLAS of the generated C: none (adjc's own), cblas or mkl")
set_property(CACHE ADJC_BLAS PROPERTY STRINGS none cblas mkl)
option(ADJC_OPENMP "Build the generated C with OpenMP" ON)

function(adjc_add_adjoint target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "FORTRAN_INTERFACE;NO_OPENMP"
      "FUNCTION;NAME;OUTPUT_DIRECTORY;BLAS" "SOURCES;WRT;OF;INCLUDE_DIRECTORIES;DEFINES;FLAGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "adjc_add_adjoint(${target}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "adjc_add_adjoint(${target}): SOURCES names no source file")
  endif()
  if(NOT ADJC_EXECUTABLE)
    message(FATAL_ERROR "adjc_add_adjoint(${target}): adjc not found; put it on the PATH, "
        "set ADJC_ROOT, or set ADJC_EXECUTABLE (`cargo install --path adjc` installs it)")
  endif()

  set(sources "")
  foreach(source IN LISTS arg_SOURCES)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND sources "${source}")
  endforeach()
  list(GET sources 0 entry)
  if(arg_NAME)
    set(stem "${arg_NAME}")
  else()
    cmake_path(GET entry STEM stem)
  endif()
  if(arg_OUTPUT_DIRECTORY)
    set(out "${arg_OUTPUT_DIRECTORY}")
    cmake_path(ABSOLUTE_PATH out BASE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" NORMALIZE)
  else()
    set(out "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  endif()
  set(blas "${ADJC_BLAS}")
  if(arg_BLAS)
    set(blas "${arg_BLAS}")
  endif()
  if(NOT blas MATCHES "^(none|cblas|mkl)$")
    message(FATAL_ERROR "adjc_add_adjoint(${target}): BLAS must be none, cblas or mkl, not '${blas}'")
  endif()

  # The transpile command: the flags, in adjc's spelling.
  set(command "${ADJC_EXECUTABLE}" transpile ${sources} -o "${out}" -MF "${out}/${stem}.d")
  if(arg_NAME)
    list(APPEND command --name "${arg_NAME}")
  endif()
  if(arg_FUNCTION)
    list(APPEND command --function "${arg_FUNCTION}")
  endif()
  if(arg_WRT)
    list(JOIN arg_WRT "," wrt)
    list(APPEND command --wrt "${wrt}")
  endif()
  if(arg_OF)
    list(JOIN arg_OF "," of)
    list(APPEND command --of "${of}")
  endif()
  foreach(dir IN LISTS arg_INCLUDE_DIRECTORIES)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}" NORMALIZE)
    list(APPEND command -I "${dir}")
  endforeach()
  foreach(define IN LISTS arg_DEFINES)
    list(APPEND command -D "${define}")
  endforeach()
  set(outputs "${out}/${stem}.c" "${out}/${stem}.h")
  if(arg_FORTRAN_INTERFACE)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "Fortran" IN_LIST languages)
      message(FATAL_ERROR "adjc_add_adjoint(${target}): FORTRAN_INTERFACE needs Fortran: "
          "project(... LANGUAGES C Fortran) or enable_language(Fortran)")
    endif()
    list(APPEND command --fortran-interface)
    list(APPEND outputs "${out}/${stem}_adjc.f90")
    # A Fortran kernel also gets the drop-in wrappers (its routine's own arguments).
    cmake_path(GET entry EXTENSION LAST_ONLY ext)
    if(NOT ext STREQUAL ".py")
      list(APPEND outputs "${out}/${stem}_adjc_wrap.f90")
    endif()
  endif()
  list(APPEND command ${arg_FLAGS})

  # The rule's output is the dependency file, used as a stamp (touched after the run, as it
  # also depends on the adjc executable, which is not in the file). The C files are
  # byproducts, which adjc rewrites only when their content changes, so an edit that changes
  # no generated line recompiles nothing.
  file(MAKE_DIRECTORY "${out}")
  add_custom_command(
      OUTPUT "${out}/${stem}.d"
      BYPRODUCTS ${outputs}
      COMMAND ${command}
      COMMAND "${CMAKE_COMMAND}" -E touch "${out}/${stem}.d"
      DEPENDS ${sources} "${ADJC_EXECUTABLE}"
      DEPFILE "${out}/${stem}.d"
      WORKING_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
      COMMENT "adjc: differentiating ${stem}"
      VERBATIM)

  add_library(${target} STATIC ${outputs} "${out}/${stem}.d")
  set_source_files_properties("${out}/${stem}.h" PROPERTIES HEADER_FILE_ONLY ON)
  target_include_directories(${target} PUBLIC "${out}")
  set_target_properties(${target} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)

  # The flags `adjc config` gives make users (the C standard is set above, the same one).
  execute_process(COMMAND "${ADJC_EXECUTABLE}" config --cflags --blas "${blas}"
      OUTPUT_VARIABLE cflags OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "adjc_add_adjoint(${target}): `${ADJC_EXECUTABLE} config --cflags` failed")
  endif()
  separate_arguments(cflags UNIX_COMMAND "${cflags}")
  list(FILTER cflags EXCLUDE REGEX "^-std=")
  target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:${cflags}>)

  if(ADJC_OPENMP AND NOT arg_NO_OPENMP)
    find_package(OpenMP REQUIRED COMPONENTS C)
    target_link_libraries(${target} PUBLIC OpenMP::OpenMP_C)
  endif()
  if(blas STREQUAL "cblas")
    if(NOT DEFINED BLA_VENDOR)
      set(BLA_VENDOR OpenBLAS) # its library holds the cblas_* symbols the C calls
    endif()
    find_package(BLAS REQUIRED)
    target_link_libraries(${target} PUBLIC BLAS::BLAS)
  elseif(blas STREQUAL "mkl")
    if(NOT DEFINED BLA_VENDOR)
      set(BLA_VENDOR Intel10_64lp)
    endif()
    find_package(BLAS REQUIRED)
    target_link_libraries(${target} PUBLIC BLAS::BLAS)
  endif()
  find_library(ADJC_LIBM m)
  if(ADJC_LIBM)
    target_link_libraries(${target} PUBLIC "${ADJC_LIBM}")
  endif()

  if(arg_FORTRAN_INTERFACE)
    set_target_properties(${target} PROPERTIES Fortran_MODULE_DIRECTORY "${out}/mod")
    target_include_directories(${target} PUBLIC "$<BUILD_INTERFACE:${out}/mod>")
  endif()
endfunction()
