"""A club's series of games (SPEC §6): named players, the games' protocols,
the standings by 4MAFIA 4.5 and the protests of 1.8."""
