# Compiler settings every Ridge target shares, through the interface target ridge::options.
add_library(ridge_options INTERFACE)
add_library(ridge::options ALIAS ridge_options)
target_compile_options(ridge_options INTERFACE -Wall -Wextra)

if(RIDGE_SANITIZE)
  set(_ridge_san -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_compile_options(ridge_options INTERFACE ${_ridge_san})
  target_link_options(ridge_options INTERFACE ${_ridge_san})
  message(STATUS "ridge: building with ASan + UBSan")
endif()

# Where the zoo and the catalogue are, for tests that read them.
set(RIDGE_MODELS_DIR ${PROJECT_SOURCE_DIR}/models)
set(RIDGE_HW_DIR ${PROJECT_SOURCE_DIR}/hw)
set(RIDGE_RUNTIMES_DIR ${PROJECT_SOURCE_DIR}/runtimes)

# GCC 12 at -O2 reports -Wrestrict on plain `"literal" + std::string` (GCC bug 105329, fixed in 13):
# a false positive inside libstdc++, not in our code. Silence that one warning on that compiler only.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(ridge_options INTERFACE -Wno-restrict)
endif()
