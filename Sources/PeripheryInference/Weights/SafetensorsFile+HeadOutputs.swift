import PeripheryCore

extension SafetensorsFile {
    /// Reads the three head tensors `classes`, `boxes` and `directions`.
    ///
    /// As in the reference, only each tensor's trailing dimension (4, 9, 2) and element count
    /// (6720 × trailing) are checked, so `[6720, 4]` and `[1, 6720, 4]` are both accepted.
    ///
    /// - Throws: `SafetensorsError` naming the missing or misshapen tensor.
    public func headOutputs() throws(SafetensorsError) -> HeadOutputs {
        let layout = [
            ("classes", Safety40.classChannels), ("boxes", Safety40.boxCodeChannels),
            ("directions", Safety40.directionChannels),
        ]
        var values: [[Float]] = []
        for (name, channels) in layout {
            guard let info = tensors[name] else { throw .missingTensor(name) }
            guard info.shape.last == channels, info.elementCount == Safety40.candidateCount * channels else {
                throw .wrongShape(tensor: name, expected: "[\(Safety40.candidateCount), \(channels)]", actual: info.shape)
            }
            values.append(try floats(name))
        }
        do throws(HeadOutputError) {
            return try HeadOutputs(classes: values[0], boxes: values[1], directions: values[2])
        } catch {
            // Unreachable: the counts were checked above against the same contract.
            throw .invalidHead(error)
        }
    }
}
