"""What a run produces: scores, the report and trace viewer, the safety report and packages."""
