# The SMPI build (COLIO_SMPI=ON, included from the top CMakeLists.txt): the
# static library, colio-bench and colio-nbbench linked against it, and the
# simulation smoke tests. "colio" names the static library here so the bench
# targets link the same way in both builds.
# SMPI's gaps, worked around in one header given to every source (src/core/smpi_compat.h).
target_compile_options(colio_objects PRIVATE -include ${CMAKE_CURRENT_SOURCE_DIR}/src/core/smpi_compat.h)
add_compile_options(-include ${CMAKE_CURRENT_SOURCE_DIR}/src/core/smpi_compat.h)
# The null backend's network leg needs S4U's C++ API (src/store/null_smpi.cc).
find_program(COLIO_SMPICXX smpicxx REQUIRED)
set(CMAKE_CXX_COMPILER ${COLIO_SMPICXX})
enable_language(CXX)
add_library(colio_static STATIC $<TARGET_OBJECTS:colio_objects> src/store/null_smpi.cc)
target_compile_features(colio_static PRIVATE cxx_std_17)
set_target_properties(colio_static PROPERTIES OUTPUT_NAME colio)
target_include_directories(colio_static PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(colio_static PUBLIC MPI::MPI_C Threads::Threads)
add_library(colio ALIAS colio_static)
if(COLIO_BUILD_TESTS)
  enable_testing()
endif()
add_subdirectory(bench)
add_subdirectory(sim)
