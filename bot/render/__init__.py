"""Drawing a scenario: Nsight-Systems-style PNG, annotated reveal image, and a Unicode text timeline."""
