"""The session check of conftest.py (tests leave nothing behind) sees a run
written into a default store, and a new file in the checkout."""

from __future__ import annotations

import dumbbell as db

from .helpers.leftovers import changes, snapshot


def _tiny() -> db.Scenario:
    s = db.star(["a", "b"], rate="100Mbps", delay="50us", duration_s=0.05, name="tiny")
    s.add_flow(db.TcpFlow(src="a", dst="b", cc="reno"))
    return s


def test_a_sweep_into_the_default_store_is_seen(tmp_path, monkeypatch):
    repo = tmp_path / "checkout"
    repo.mkdir()
    monkeypatch.chdir(repo)  # the default store is ./dumbbell-results
    monkeypatch.delenv("DUMBBELL_STORE", raising=False)
    before = snapshot(repo)
    assert changes(before, snapshot(repo)) == []
    db.sweep(_tiny(), grid={"links[0].loss_ab": [0.0]}, store=None)  # what test_controls.py did
    assert (repo / "dumbbell-results").is_dir()
    found = changes(before, snapshot(repo))
    assert f"store {repo / 'dumbbell-results'} changed" in found
    assert "new in the checkout: dumbbell-results" in found


def test_the_users_store_is_watched(tmp_path, monkeypatch):
    repo, mine = tmp_path / "checkout", tmp_path / "my-results"
    repo.mkdir()
    monkeypatch.chdir(repo)
    monkeypatch.setenv("DUMBBELL_STORE", str(mine))
    before = snapshot(repo)
    db.sweep(_tiny(), grid={"links[0].loss_ab": [0.0]}, store=mine)
    assert changes(before, snapshot(repo)) == [f"store {mine} changed"]
