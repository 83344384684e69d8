x6
