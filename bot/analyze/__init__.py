"""Reading a real Kineto / Chrome trace: import it, run the reading order, name the likeliest signature."""
