print("gpick")
