# The SMPI build (COLIO_SMPI=ON, included from the top CMakeLists.txt): the
# static library, colio-bench and colio-nbbench linked against it, and the
# simulation smoke tests. "colio" names the static library here so the bench
# targets link the same way in both builds.
# SMPI's gaps, worked around in one header given to every source (src/base/smpi_compat.h).
target_compile_options(colio_objects PRIVATE -include ${CMAKE_CURRENT_SOURCE_DIR}/src/base/smpi_compat.h)
add_compile_options(-include ${CMAKE_CURRENT_SOURCE_DIR}/src/base/smpi_compat.h)
add_library(colio_static STATIC $<TARGET_OBJECTS:colio_objects>)
set_target_properties(colio_static PROPERTIES OUTPUT_NAME colio)
target_include_directories(colio_static PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_link_libraries(colio_static PUBLIC MPI::MPI_C Threads::Threads)
# what links colio here is built for SMPI too (colio-bench's shared data buffer, colio-nbbench's
# simulated computation): an object library's definitions do not reach its users.
target_compile_definitions(colio_static PUBLIC COLIO_SMPI=1)
add_library(colio ALIAS colio_static)
if(COLIO_BUILD_TESTS)
  enable_testing()
endif()
add_subdirectory(bench)
add_subdirectory(sim)
