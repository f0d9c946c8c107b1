// The umbrella module: one import gives a program the whole pipeline (docs: README, "Modules").
@_exported import PeripheryCore
@_exported import PeripheryGeometry
@_exported import PeripheryIO
@_exported import PeripheryInference
@_exported import PeripheryRendering
@_exported import PeripheryRun
@_exported import PeripheryServer
@_exported import PeripherySynthetic
