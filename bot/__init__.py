"""tracedrill: drills engineering teams in reading GPU performance traces."""
