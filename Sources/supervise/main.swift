print("supervise")
