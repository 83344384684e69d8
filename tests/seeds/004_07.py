print(f"out:{out!r}")
out.backward()
