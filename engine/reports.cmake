# Reports people would rather look at: roofline and sweep plots (SVG), timelines (Chrome trace),
# data-parallel scaling, rank correlation, and a deployment's serving run.
# Included from engine/CMakeLists.txt after ridge_engine is defined.
target_sources(ridge_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/scaling.cpp
  ${CMAKE_CURRENT_LIST_DIR}/stats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/svg_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/svg_roofline.cpp
)
target_sources(ridge_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/render/svg_plots.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/label_placer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/serving_figures.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/scaling_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/render/grid.cpp
)

