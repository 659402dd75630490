"""What colmeia learns about one endpoint: which features it honours, and how fast it is.

``colmeia llm check`` prints this profile, agents size their deadlines and ``max_tokens`` from
its speed, and the client stops sending a feature the endpoint refused, for ten minutes. These
tests give the profile the answers a server gives and check the figures a person would read.
"""

from __future__ import annotations

import pytest

from colmeia.llm.capabilities import (
    REVISIT_S,
    EndpointProfile,
    FeatureState,
    Speed,
    endpoint_profile,
    forget_endpoints,
)


def _profile(**kw: float) -> EndpointProfile:
    return EndpointProfile("http://127.0.0.1:8080/v1", "qwen", **kw)


# -- features: honoured, ignored, refused, and tried again after revisit_s -----------------


def test_a_feature_never_tried_is_unknown_and_usable() -> None:
    profile = _profile()
    assert profile.support("tool_choice_required") == "unknown"
    assert profile.usable("tool_choice_required")
    assert profile.describe() == {
        "features": {},
        "speed": {
            "prompt_tokens_per_s": None,
            "gen_tokens_per_s": None,
            "samples": 0,
            "source": "",
        },
    }


def test_a_refused_feature_is_avoided_and_described_with_the_servers_words() -> None:
    profile = _profile()
    profile.refused("json_schema", "response_format is not supported")
    profile.refused("json_schema", "response_format is not supported")
    assert profile.support("json_schema") == "no"
    assert not profile.usable("json_schema")
    assert profile.describe()["features"] == {
        "json_schema": {
            "support": "no",
            "honoured": 0,
            "ignored": 0,
            "refused": 2,
            "reason": "response_format is not supported",
        }
    }


def test_an_ignored_feature_counts_as_ignored_not_refused() -> None:
    profile = _profile()
    profile.ignored("tool_choice_required", "prose came back under tool_choice=required")
    profile.ignored("tool_choice_required", "prose again")
    state = profile.describe()["features"]["tool_choice_required"]
    assert (state["support"], state["ignored"], state["refused"]) == ("no", 2, 0)
    assert state["reason"] == "prose again"  # the latest answer is the one shown


def test_a_long_server_message_is_kept_to_its_first_300_characters() -> None:
    profile = _profile()
    profile.refused("tools", "x" * 299 + "yz" + "!" * 500)
    assert profile.describe()["features"]["tools"]["reason"] == "x" * 299 + "y"


def test_an_honoured_feature_is_yes_and_forgets_the_earlier_refusal_reason() -> None:
    profile = _profile()
    profile.refused("tool_choice_named", "tool_choice object not supported")
    profile.honoured("tool_choice_named")
    profile.honoured("tool_choice_named")
    state = profile.describe()["features"]["tool_choice_named"]
    assert state == {
        "support": "yes",
        "honoured": 2,
        "ignored": 0,
        "refused": 1,
        "reason": "",
    }
    assert profile.usable("tool_choice_named")


def test_features_are_described_in_alphabetical_order() -> None:
    profile = _profile()
    profile.honoured("tools")
    profile.refused("json_schema", "no")
    profile.ignored("tool_choice_auto", "no")
    assert list(profile.describe()["features"]) == ["json_schema", "tool_choice_auto", "tools"]


def test_a_refusal_is_tried_again_once_revisit_s_has_passed_and_not_a_moment_before() -> None:
    state = FeatureState(support="no", refused=1, since=1000.0)
    assert state.current(1000.0 + REVISIT_S - 0.001, REVISIT_S) == "no"
    assert state.current(1000.0 + REVISIT_S, REVISIT_S) == "unknown"  # exactly ten minutes
    assert REVISIT_S == 600.0
    assert FeatureState(support="yes", since=0.0).current(10_000.0, REVISIT_S) == "yes"


def test_an_endpoint_with_no_revisit_time_tries_a_refused_feature_again_at_once() -> None:
    profile = _profile(revisit_s=0.0)
    profile.refused("json_schema", "unsupported")
    assert profile.support("json_schema") == "unknown"
    assert profile.describe()["features"]["json_schema"]["support"] == "unknown"
    patient = _profile(revisit_s=3600.0)
    patient.refused("json_schema", "unsupported")
    assert patient.describe()["features"]["json_schema"]["support"] == "no"


# -- speed ------------------------------------------------------------------------------------


def test_llama_cpp_timings_are_the_speed_when_the_server_reports_them() -> None:
    profile = _profile()
    timings = {"prompt_per_second": 412.25, "predicted_per_second": "18.44"}
    profile.observe_speed({"timings": timings}, 9.0, 300, 100)
    assert profile.describe()["speed"] == {
        "prompt_tokens_per_s": 412.2,
        "gen_tokens_per_s": 18.4,
        "samples": 1,
        "source": "server timings",
    }


def test_without_timings_the_speed_is_tokens_over_wall_time() -> None:
    profile = _profile()
    profile.observe_speed({"choices": []}, 4.0, 500, 128)
    assert profile.speed.gen_tps == 32.0
    assert profile.speed.prompt_tps is None  # wall time cannot tell reading from writing
    assert profile.describe()["speed"]["source"] == "wall time"
    assert profile.describe()["speed"]["samples"] == 1


def test_timings_without_a_generation_speed_fall_back_to_wall_time() -> None:
    profile = _profile()
    profile.observe_speed({"timings": {"prompt_per_second": 400.0}}, 2.0, 100, 20)
    assert (profile.speed.gen_tps, profile.speed.prompt_tps) == (10.0, None)
    assert profile.speed.source == "wall time"


def test_a_short_or_untimed_answer_says_nothing_about_speed() -> None:
    profile = _profile()
    profile.observe_speed({}, 1.0, 100, 7)  # fewer than 8 tokens: too short to time
    profile.observe_speed({}, 0.0, 100, 50)  # no time measured (a streamed event)
    profile.observe_speed({"timings": {"predicted_per_second": 0}}, 0.0, 0, 0)
    assert profile.describe()["speed"]["samples"] == 0
    profile.observe_speed({}, 1.0, 100, 8)  # eight tokens are enough
    assert profile.speed.gen_tps == 8.0


def test_a_model_slower_than_a_token_a_second_is_measured_too() -> None:
    # a 1.5B model on two busy cores wrote 0.45 tokens/s: exactly where deadlines must grow
    profile = _profile()
    timings = {"prompt_per_second": 0.8, "predicted_per_second": 0.45}
    profile.observe_speed({"timings": timings}, 60.0, 40, 27)
    assert (profile.speed.prompt_tps, profile.speed.gen_tps) == (0.8, 0.45)
    assert profile.speed.deadline_for(30.0, prompt_tokens=40, completion_tokens=27) > 300


def test_unreadable_timings_are_left_out_not_raised() -> None:
    profile = _profile()
    timings = {"prompt_per_second": "fast", "predicted_per_second": "20.5"}
    profile.observe_speed({"timings": timings}, 1.0, 10, 10)
    assert (profile.speed.prompt_tps, profile.speed.gen_tps) == (None, 20.5)
    profile.observe_speed({"timings": {"predicted_per_second": ["?"]}}, 2.0, 10, 40)
    assert (profile.speed.gen_tps, profile.speed.samples) == (20.5, 1)


def test_each_new_measurement_moves_the_average_by_thirty_percent() -> None:
    speed = Speed()
    speed.observe(400.0, 20.0, "server timings")
    speed.observe(200.0, 10.0, "server timings")
    assert speed.prompt_tps == pytest.approx(0.7 * 400 + 0.3 * 200)  # 340
    assert speed.gen_tps == pytest.approx(17.0)
    assert speed.samples == 2


def test_a_zero_or_missing_measurement_leaves_the_average_alone() -> None:
    speed = Speed()
    speed.observe(400.0, 20.0, "server timings")
    speed.observe(0.0, None, "wall time")
    speed.observe(-5.0, 0.0, "wall time")
    assert (speed.prompt_tps, speed.gen_tps, speed.samples) == (400.0, 20.0, 1)
    assert speed.source == "server timings"
    speed.observe(None, 10.0, "wall time")
    assert speed.prompt_tps == 400.0 and speed.source == "wall time"


def test_expected_seconds_read_the_prompt_then_write_the_answer() -> None:
    speed = Speed()
    assert speed.seconds_for(1000, 100) is None  # nothing measured yet
    speed.observe(500.0, 20.0, "server timings")
    assert speed.seconds_for(1000, 100) == pytest.approx(2.0 + 5.0)
    writing_only = Speed()
    writing_only.observe(None, 20.0, "wall time")
    assert writing_only.seconds_for(1000, 100) == pytest.approx(5.0)


def test_a_deadline_grows_to_three_times_the_expected_time_on_a_slow_endpoint() -> None:
    speed = Speed()
    assert speed.deadline_for(30.0) == 30.0  # nothing measured: the deadline given
    speed.observe(None, 4.0, "wall time")
    assert speed.deadline_for(30.0) == pytest.approx(3 * 256 / 4)  # default 256 tokens: 192 s
    assert speed.deadline_for(30.0, completion_tokens=20) == 30.0  # 15 s fits in 30
    speed.observe(100.0, 4.0, "server timings")
    assert speed.deadline_for(1.0) == 192.0  # no prompt given: none to read
    assert speed.deadline_for(1.0, prompt_tokens=200, completion_tokens=8) == pytest.approx(
        3 * (2.0 + 2.0)
    )


def test_the_tokens_that_fit_in_a_time_budget_after_reading_the_prompt() -> None:
    speed = Speed()
    assert speed.max_tokens_within(10.0) is None
    speed.observe(None, 20.0, "wall time")
    assert speed.max_tokens_within(10.0, prompt_tokens=5000) == 200  # prompt speed unknown
    speed.observe(1000.0, 20.0, "server timings")
    assert speed.max_tokens_within(10.0) == 200  # no prompt given: the whole time writes
    assert speed.max_tokens_within(10.0, prompt_tokens=5000) == 100  # 5 s to read, 5 to write
    assert speed.max_tokens_within(10.25, prompt_tokens=5000) == 105
    assert speed.max_tokens_within(3.0, prompt_tokens=5000) == 0  # not even the prompt fits


# -- one profile per endpoint, shared by every client of it -----------------------------------


def test_every_client_of_the_same_endpoint_shares_one_profile() -> None:
    a = endpoint_profile("http://127.0.0.1:8080/v1/", "qwen")
    b = endpoint_profile("http://127.0.0.1:8080/v1", "qwen")
    assert a is b and a.base_url == "http://127.0.0.1:8080/v1" and a.model == "qwen"
    assert endpoint_profile("http://127.0.0.1:8080/v1", "llama") is not a
    assert endpoint_profile("http://127.0.0.1:8081/v1", "qwen") is not a
    a.refused("json_schema", "unsupported")
    assert b.support("json_schema") == "no"


def test_forgetting_endpoints_starts_every_profile_afresh() -> None:
    before = endpoint_profile("http://127.0.0.1:8080/v1", "qwen")
    before.refused("json_schema", "unsupported")
    forget_endpoints()
    after = endpoint_profile("http://127.0.0.1:8080/v1", "qwen")
    assert after is not before
    assert after.support("json_schema") == "unknown"
    assert after.revisit_s == REVISIT_S
