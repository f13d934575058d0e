#pragma once
// Every dvla message: one header per schema, each with build() and a validating read().
#include "messages/action_batch.hpp"
#include "messages/control_command.hpp"
#include "messages/metrics.hpp"
#include "messages/observation_batch.hpp"
#include "messages/trajectory_segment.hpp"
#include "messages/version_announcement.hpp"
#include "messages/weight_update.hpp"
