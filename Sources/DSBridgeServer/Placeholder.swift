import DSBridge
