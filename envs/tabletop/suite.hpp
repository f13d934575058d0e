#pragma once
// Suites: named groups of tasks for training and evaluation. Some task/colour combinations are
// held out of every suite's training tasks, for generalisation tests.
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/tabletop/task.hpp>

namespace dvla::envs::tabletop {

struct Suite {
  std::string name;
  std::vector<Task> train_tasks;    // what training episodes are drawn from
  std::vector<Task> heldout_tasks;  // same families, never trained on
};

// The held-out combinations: one per family, two for stack.
const std::vector<Task>& heldout_tasks();
bool is_heldout(const Task& t);
// "lift", "push", "place_bowl", "stack" (one family each) and "mixed" (all four).
const std::vector<std::string>& suite_names();
Expected<Suite> suite(const std::string& name);

}  // namespace dvla::envs::tabletop
