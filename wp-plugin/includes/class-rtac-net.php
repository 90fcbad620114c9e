<?php
/**
 * IP addresses: the client address behind trusted proxies, CIDR ranges, the
 * bucket an address is counted in, and whether a host is this machine.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Net {

	/** An address in its canonical text form ('::ffff:1.2.3.4' becomes '1.2.3.4'), or '' when it is none. */
	public static function normalize( string $ip ): string {
		$ip = trim( $ip );
		if ( '' !== $ip && '[' === $ip[0] ) {
			$ip = trim( $ip, '[]' );
		}
		$ip = (string) preg_replace( '/%.*$/', '', $ip ); // An IPv6 zone ("fe80::1%eth0") is local detail.
		if ( ! filter_var( $ip, FILTER_VALIDATE_IP ) ) {
			return '';
		}
		$bin = (string) inet_pton( $ip );
		if ( 16 === strlen( $bin ) && str_starts_with( $bin, str_repeat( "\0", 10 ) . "\xff\xff" ) ) {
			$bin = substr( $bin, 12 ); // IPv4-mapped IPv6: the IPv4 address it carries.
		}
		return (string) inet_ntop( $bin );
	}

	/**
	 * The key rate limits count an address under: an IPv4 address as it is, an
	 * IPv6 address by its /64 (one subscriber usually holds a whole /64, so
	 * counting single addresses would let one client use 2^64 of them).
	 */
	public static function bucket( string $ip ): string {
		$ip = self::normalize( $ip );
		if ( '' === $ip || ! str_contains( $ip, ':' ) ) {
			return $ip;
		}
		$bin = substr( (string) inet_pton( $ip ), 0, 8 ) . str_repeat( "\0", 8 );
		return inet_ntop( $bin ) . '/64';
	}

	/** A CIDR range ("10.0.0.0/8", "2001:db8::/32") or a single address, canonical; '' when invalid. */
	public static function normalize_range( string $range ): string {
		$range = trim( $range );
		$bits  = null;
		if ( str_contains( $range, '/' ) ) {
			list( $range, $bits ) = explode( '/', $range, 2 );
			if ( ! preg_match( '/^[0-9]{1,3}$/', $bits ) ) {
				return '';
			}
			$bits = (int) $bits;
		}
		$ip = self::normalize( $range );
		if ( '' === $ip ) {
			return '';
		}
		$max = str_contains( $ip, ':' ) ? 128 : 32;
		if ( null === $bits || $bits === $max ) {
			return $ip;
		}
		return $bits <= $max ? $ip . '/' . $bits : '';
	}

	/** Whether $ip lies in $range (a CIDR range or a single address). */
	public static function in_range( string $ip, string $range ): bool {
		$ip    = self::normalize( $ip );
		$range = self::normalize_range( $range );
		if ( '' === $ip || '' === $range ) {
			return false;
		}
		list( $net, $bits ) = array_pad( explode( '/', $range, 2 ), 2, null );
		$a = (string) inet_pton( $ip );
		$b = (string) inet_pton( $net );
		if ( strlen( $a ) !== strlen( $b ) ) {
			return false;
		}
		$bits  = null === $bits ? 8 * strlen( $a ) : (int) $bits;
		$bytes = intdiv( $bits, 8 );
		if ( substr( $a, 0, $bytes ) !== substr( $b, 0, $bytes ) ) {
			return false;
		}
		$rest = $bits % 8;
		if ( 0 === $rest ) {
			return true;
		}
		$mask = ( 0xff << ( 8 - $rest ) ) & 0xff;
		return ( ord( $a[ $bytes ] ) & $mask ) === ( ord( $b[ $bytes ] ) & $mask );
	}

	/** @param string[] $ranges */
	public static function in_any( string $ip, array $ranges ): bool {
		foreach ( $ranges as $range ) {
			if ( self::in_range( $ip, (string) $range ) ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * The valid ranges of a list typed by a person: one per line, or separated
	 * by commas or spaces; anything that is not an address or a range is dropped.
	 *
	 * @param string|string[] $list
	 * @return string[]
	 */
	public static function parse_ranges( $list ): array {
		$items = is_array( $list ) ? $list : (array) preg_split( '/[\s,;]+/', (string) $list, -1, PREG_SPLIT_NO_EMPTY );
		$out   = array();
		foreach ( $items as $item ) {
			$range = self::normalize_range( (string) $item );
			if ( '' !== $range ) {
				$out[ $range ] = $range;
			}
		}
		return array_values( $out );
	}

	/**
	 * The client's address. REMOTE_ADDR, unless it is one of the trusted
	 * proxies: then X-Forwarded-For is read from the right (each proxy appends
	 * the address it saw) and the first hop that is not a trusted proxy is the
	 * client. Hops further left were written by the client itself and prove
	 * nothing. With no trusted proxy (the default) the header is ignored.
	 *
	 * @param string   $remote_addr     $_SERVER['REMOTE_ADDR'].
	 * @param string   $forwarded_for   The X-Forwarded-For header ('' when absent).
	 * @param string[] $trusted_proxies Addresses and CIDR ranges.
	 */
	public static function client_ip( string $remote_addr, string $forwarded_for, array $trusted_proxies ): string {
		$client = self::normalize( $remote_addr );
		if ( '' === $client || ! $trusted_proxies || ! self::in_any( $client, $trusted_proxies ) ) {
			return $client;
		}
		$hops = array_reverse( array_map( 'trim', explode( ',', $forwarded_for ) ) );
		foreach ( $hops as $hop ) {
			$ip = self::normalize( $hop );
			if ( '' === $ip ) {
				// Not an address: nothing left of it can be believed. The last trusted hop stands in.
				break;
			}
			$client = $ip;
			if ( ! self::in_any( $ip, $trusted_proxies ) ) {
				break;
			}
		}
		return $client;
	}

	/** Whether a URL host names this machine: localhost, 127.0.0.0/8 or ::1. */
	public static function is_loopback_host( string $host ): bool {
		$host = strtolower( trim( trim( $host ), '[]' ) );
		if ( 'localhost' === $host || str_ends_with( $host, '.localhost' ) ) {
			return true;
		}
		$ip = self::normalize( $host );
		return '' !== $ip && ( '::1' === $ip || self::in_range( $ip, '127.0.0.0/8' ) );
	}
}
