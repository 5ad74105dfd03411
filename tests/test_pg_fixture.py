"""The PostgreSQL fixture gives a real server: a fresh database per test, reached over a Unix
socket only (no TCP)."""

from __future__ import annotations


def test_each_test_gets_an_empty_database_of_a_real_server(pg_url, pg_server):
    import psycopg

    with psycopg.connect(pg_url) as db:
        assert db.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
                          ).fetchone() == (0,)
        assert db.execute("SHOW listen_addresses").fetchone() == ("",)
    assert pg_server.new_database() != pg_url
