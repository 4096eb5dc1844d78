print("skwad")
