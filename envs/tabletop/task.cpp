#include <dvla/envs/tabletop/task.hpp>

namespace dvla::envs::tabletop {

int horizon(Family f) {
  switch (f) {
    case Family::lift:
      return 60;
    case Family::push:
      return 80;
    case Family::place_bowl:
      return 110;
    case Family::stack:
      return 110;
  }
  return 0;
}

std::string task_name(const Task& t) {
  std::string name = std::string(to_text(t.family)) + "/" + std::string(to_text(t.a));
  if (t.family == Family::stack) name += std::string("-on-") + std::string(to_text(t.b));
  return name;
}

std::string instruction(const Task& t) {
  const std::string a = std::string(to_text(t.a));
  switch (t.family) {
    case Family::lift:
      return "pick up the " + a + " cube";
    case Family::push:
      return "push the " + a + " cube into the green zone";
    case Family::place_bowl:
      return "put the " + a + " cube in the bowl";
    case Family::stack:
      return "stack the " + a + " cube on the " + std::string(to_text(t.b)) + " cube";
  }
  return "";
}

const std::vector<Task>& all_tasks() {
  static const std::vector<Task> tasks = [] {
    std::vector<Task> out;
    for (Family f : {Family::lift, Family::push, Family::place_bowl})
      for (int c = 0; c < cube_count; ++c) out.push_back({f, Color(c), Color(c)});
    for (int a = 0; a < cube_count; ++a)
      for (int b = 0; b < cube_count; ++b)
        if (a != b) out.push_back({Family::stack, Color(a), Color(b)});
    return out;
  }();
  return tasks;
}

int task_id(const Task& t) {
  const auto& tasks = all_tasks();
  for (size_t i = 0; i < tasks.size(); ++i)
    if (tasks[i] == t) return static_cast<int>(i);
  return -1;
}

Expected<Task> parse_task(const std::string& name) {
  for (const auto& t : all_tasks())
    if (task_name(t) == name) return t;
  return Error("unknown tabletop task '" + name + "' (e.g. lift/red, push/blue, " +
               "place_bowl/green, stack/red-on-blue)");
}

}  // namespace dvla::envs::tabletop
