# LLM serving under a request load (issue #36): the scheduler simulation and its iteration times.
# Included from engine/CMakeLists.txt after parallel/parallel.cmake.
target_sources(ridge_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/serving.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_cost.cpp
  ${CMAKE_CURRENT_LIST_DIR}/deployment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/search.cpp
)
