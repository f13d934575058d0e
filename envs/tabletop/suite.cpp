#include <dvla/envs/tabletop/suite.hpp>

namespace dvla::envs::tabletop {

const std::vector<Task>& heldout_tasks() {
  static const std::vector<Task> tasks = {
      {Family::lift, Color::yellow, Color::yellow},     {Family::push, Color::blue, Color::blue},
      {Family::place_bowl, Color::green, Color::green}, {Family::stack, Color::red, Color::blue},
      {Family::stack, Color::yellow, Color::green},
  };
  return tasks;
}

bool is_heldout(const Task& t) {
  for (const auto& h : heldout_tasks())
    if (h == t) return true;
  return false;
}

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"lift", "push", "place_bowl", "stack", "mixed"};
  return names;
}

Expected<Suite> suite(const std::string& name) {
  bool known = false;
  for (const auto& n : suite_names()) known = known || n == name;
  if (!known)
    return Error("unknown tabletop suite '" + name + "' (lift, push, place_bowl, stack, mixed)");
  Suite s;
  s.name = name;
  for (const auto& t : all_tasks()) {
    if (name != "mixed" && name != to_text(t.family)) continue;
    (is_heldout(t) ? s.heldout_tasks : s.train_tasks).push_back(t);
  }
  return s;
}

}  // namespace dvla::envs::tabletop
