print("dsbridged")
