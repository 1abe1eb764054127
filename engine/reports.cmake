# Reports people would rather look at: roofline and sweep plots (SVG), timelines (Chrome trace),
# data-parallel scaling and rank correlation, and the simulate options that ask for them.
# Included from engine/CMakeLists.txt after ridge_engine is defined.
target_sources(ridge_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/scaling.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/svg_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/svg_roofline.cpp
)
target_sources(ridge_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/render/svg_plots.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/scaling_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/grid.cpp
)

# The simulate options that ask for these reports. A library of its own, as it needs CLI11 and lang,
# which the engine library does not.
add_library(ridge_engine_cli STATIC ${CMAKE_CURRENT_LIST_DIR}/cli/report_options.cpp)
target_link_libraries(ridge_engine_cli PUBLIC ridge::engine ridge::lang CLI11::CLI11 PRIVATE ridge::options)
target_link_libraries(simulate PRIVATE ridge_engine_cli)
