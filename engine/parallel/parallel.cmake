# Parallel training (tensor, pipeline, data, sequence parallelism, ZeRO; collectives; --search).
# Included from engine/CMakeLists.txt after reports.cmake.
target_sources(ridge_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/collectives.cpp
  ${CMAKE_CURRENT_LIST_DIR}/transformer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/strategy.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../render/parallel.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../render/pipeline_trace.cpp
)
