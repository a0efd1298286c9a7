"""One module per signature; each exposes ID, TITLE, SUMMARY, TWIN and generate(rng, difficulty, seed)."""
