/// One outcome on the stream with its sequence numbers.
package struct OutcomeEvent: Sendable, Hashable {
    /// The outcome's numbers in each scope.
    package var sequences: OutcomeSequences
    /// The outcome.
    package var outcome: WireOutcome

    /// Creates an event.
    package init(sequences: OutcomeSequences, outcome: WireOutcome) {
        self.sequences = sequences
        self.outcome = outcome
    }

    /// The event as one packed record: the sequences (6 × u64), then the outcome's 7 fields.
    var packed: [UInt8] {
        var writer = PackedRecordWriter(capacity: 4 + OutcomeSequences.byteCount + 30 + outcome.byteCount)
        writer.append(sequences.bytes)
        writer.appendFields(of: outcome)
        return writer.bytes
    }

    static func unpack(_ frame: ArraySlice<UInt8>, command: WireCommand, limits: WireLimits) throws(WireError) -> OutcomeEvent {
        try PackedRecord.read(frame, command: command, limits: limits) { (reader) throws(WireError) in
            let sequences = OutcomeSequences(bytes: try reader.fixed("sequences", size: OutcomeSequences.byteCount))
            return OutcomeEvent(sequences: sequences, outcome: try WireOutcome(reading: &reader))
        }
    }
}

/// What the coordinator publishes on the outcome stream.
package enum StreamMessage: Sendable, Hashable {
    /// EVENT: topic, header, then the event as one packed record (its sequences, then the
    /// outcome's fields).
    case event(topic: [UInt8], sequences: OutcomeSequences, outcome: WireOutcome)
    /// EVENT carrying several events of one topic, in the order they were numbered (decoding a
    /// one-record EVENT gives ``event(topic:sequences:outcome:)``).
    case eventBatch(topic: [UInt8], events: [OutcomeEvent])
    /// SUBSCRIBED: topic (the subscription prefix), header, the coordinator's instance. Tells a
    /// new subscriber its subscription has reached the coordinator, so nothing after it is
    /// missed; a SUBSCRIBED from another instance (the SUB socket resubscribes by itself after
    /// a reconnection) tells it the coordinator restarted, so outcomes in between may be lost.
    case subscribed(topic: [UInt8], instance: String)
    /// BEGAN: topic (``OutcomeTopic/beganTopics(for:)``), header, then one packed record per
    /// request that started running, in the order they started. Not numbered: a subscriber that
    /// misses one still gets the request's outcome, which is.
    case began(topic: [UInt8], events: [BeganEvent])

    /// Appends the message's frames to `writer`.
    package func encode<Writer: WireFrameWriter>(into writer: inout Writer) {
        switch self {
        case .event(let topic, let sequences, let outcome):
            writer.append(topic)
            writer.append(WireHeader.bytes(.event))
            writer.append(OutcomeEvent(sequences: sequences, outcome: outcome).packed)
        case .eventBatch(let topic, let events):
            writer.append(topic)
            writer.append(WireHeader.bytes(.event))
            for event in events { writer.append(event.packed) }
        case .subscribed(let topic, let instance):
            writer.append(topic)
            writer.append(WireHeader.bytes(.subscribed))
            writer.append(instance)
        case .began(let topic, let events):
            writer.append(topic)
            writer.append(WireHeader.bytes(.beganEvent))
            for event in events { writer.append(event.packed) }
        }
    }

    /// Decodes a message received on a SUB socket.
    package static func decode<Frames: WireFrames>(
        _ frames: Frames, limits: WireLimits = WireLimits()
    ) throws(WireError) -> StreamMessage {
        guard frames.count >= 2 else { throw WireError(.truncated, "stream message needs a topic and a header") }
        let topic = Array(frames.frame(at: 0))
        let command = try WireHeader.command(in: frames.frame(at: 1))
        var reader = FrameReader(frames, at: 2, limits: limits, command: command)
        let message: StreamMessage
        switch command {
        case .event:
            let events = try reader.records(OutcomeEvent.unpack)
            message = events.count == 1
                ? .event(topic: topic, sequences: events[0].sequences, outcome: events[0].outcome)
                : .eventBatch(topic: topic, events: events)
        case .subscribed:
            message = .subscribed(topic: topic, instance: try reader.name("instance"))
        case .beganEvent:
            message = .began(topic: topic, events: try reader.records(BeganEvent.unpack))
        default:
            throw WireError(.unknownCommand, "\(command) is not a stream message")
        }
        try reader.end()
        return message
    }
}
