#pragma once
// Tasks of the tabletop suite: four families over the cube colours, each with an instruction in
// words, a horizon and a stable name ("stack/red-on-blue") and id.
#include <string>
#include <vector>

#include <dvla/core/expected.hpp>
#include <dvla/envs/tabletop/scene.hpp>

namespace dvla::envs::tabletop {

enum class Family { lift, push, place_bowl, stack };
constexpr int family_count = 4;

}  // namespace dvla::envs::tabletop

namespace dvla {

template <>
struct EnumNames<envs::tabletop::Family> {
  static constexpr std::array<std::pair<envs::tabletop::Family, std::string_view>, 4> names{
      {{envs::tabletop::Family::lift, "lift"},
       {envs::tabletop::Family::push, "push"},
       {envs::tabletop::Family::place_bowl, "place_bowl"},
       {envs::tabletop::Family::stack, "stack"}}};
};

}  // namespace dvla

namespace dvla::envs::tabletop {

// Steps before truncation: about 2.3x the longest scripted success of the family.
int horizon(Family f);

struct Task {
  Family family = Family::lift;
  Color a = Color::red;  // the cube to act on
  Color b = Color::red;  // stack only: the cube to stack on
  bool operator==(const Task& o) const {
    return family == o.family && a == o.a && (family != Family::stack || b == o.b);
  }
};

std::string task_name(const Task& t);    // "lift/red", "stack/red-on-blue"
std::string instruction(const Task& t);  // "pick up the red cube"
// Every task, in a fixed order (4 lift, 4 push, 4 place_bowl, 12 stack); a task's id is its index.
const std::vector<Task>& all_tasks();
int task_id(const Task& t);
Expected<Task> parse_task(const std::string& name);

}  // namespace dvla::envs::tabletop
