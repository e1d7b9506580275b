it('trivial', () => expect(1).toBe(1));
