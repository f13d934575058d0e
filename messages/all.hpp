#pragma once
// Every dvla message: one header per schema, each with build() and a validating read().
#include <dvla/messages/action_batch.hpp>
#include <dvla/messages/control_command.hpp>
#include <dvla/messages/metrics.hpp>
#include <dvla/messages/observation_batch.hpp>
#include <dvla/messages/trajectory_segment.hpp>
#include <dvla/messages/version_announcement.hpp>
#include <dvla/messages/weight_chunk.hpp>
#include <dvla/messages/weight_update.hpp>
