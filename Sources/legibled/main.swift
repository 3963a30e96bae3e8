print("legibled")
