<?php
/**
 * The dashboard widget: open unanswered questions, a small chart of them per
 * week, turns, estimated cost and what prompt caching saved, and the language
 * gaps: per visitor language, how many questions were answered from pages in
 * that language, from another language's pages, or from no page at all.
 *
 * Only numbers are cached (stats and per-week counts, for CACHE_TTL); the
 * questions themselves are what customers wrote and are never stored here.
 *
 * @package rtac
 */

defined( 'ABSPATH' ) || exit;

final class Rtac_Dashboard {

	const WEEKS     = 8;
	const CACHE_TTL = 300; // The dashboard is opened often; the numbers move slowly.

	private Rtac_Settings $settings;
	private Rtac_Unanswered_Report $unanswered;
	private ?Rtac_Client $client;

	public function __construct( Rtac_Settings $settings, Rtac_Unanswered_Report $unanswered, ?Rtac_Client $client = null ) {
		$this->settings   = $settings;
		$this->unanswered = $unanswered;
		$this->client     = $client;
	}

	/** wp_dashboard_setup. */
	public function register(): void {
		if ( Rtac_Capability::can_manage() ) {
			wp_add_dashboard_widget( 'rtac_dashboard', __( 'Chat assistant', 'rtac' ), array( $this, 'render' ) );
		}
	}

	/** @return array{stats:array|null, weeks:array<string,int>|null, open:int|null, error:string} */
	public function data(): array {
		$key    = Rtac_Registry::dashboard_transient();
		$cached = get_transient( $key );
		if ( is_array( $cached ) ) {
			return $cached;
		}
		$client = $this->client ?? Rtac_Client::from_settings( $this->settings );
		$stats  = $client->request( 'GET', '/v1/stats' );
		$items  = $this->unanswered->fetch();
		$data   = array(
			'stats' => null === $stats['error'] && is_array( $stats['body'] ) ? $stats['body'] : null,
			'weeks' => is_wp_error( $items ) ? null : self::per_week( $items ),
			'open'  => is_wp_error( $items ) ? null : count( $items ),
			'error' => null !== $stats['error'] ? $stats['error']->get_error_message() : ( is_wp_error( $items ) ? $items->get_error_message() : '' ),
		);
		if ( '' === $data['error'] ) {
			set_transient( $key, $data, self::CACHE_TTL );
		}
		return $data;
	}

	public function render(): void {
		if ( ! Rtac_Capability::can_manage() ) {
			return;
		}
		$data = $this->data();
		if ( null === $data['stats'] ) {
			Rtac_Admin::render_unreachable( new WP_Error( 'rtac_unreachable', $data['error'] ) );
			return;
		}
		$s    = $data['stats'];
		$open = (int) ( $s['open_unanswered'] ?? ( $data['open'] ?? 0 ) );

		echo '<div class="rtac-dashboard">';
		printf(
			'<p class="rtac-open"><a href="%1$s"><strong>%2$s</strong></a></p>',
			esc_url( Rtac_Admin::page_url( Rtac_Admin_Unanswered::PAGE ) ),
			/* translators: %s: number of open unanswered questions. */
			esc_html( sprintf( _n( '%s open unanswered question', '%s open unanswered questions', $open, 'rtac' ), number_format_i18n( $open ) ) )
		);
		if ( is_array( $data['weeks'] ) ) {
			echo self::chart( $data['weeks'] ); // phpcs:ignore WordPress.Security.EscapeOutput.OutputNotEscaped -- built from escaped parts
		}
		$rows = array(
			__( 'Turns', 'rtac' )                => number_format_i18n( (int) ( $s['turns'] ?? 0 ) ),
			__( 'Estimated cost', 'rtac' )       => '$' . number_format_i18n( (float) ( $s['estimated_cost_usd'] ?? 0 ), 2 ),
			__( 'Saved by caching', 'rtac' )     => '$' . number_format_i18n( (float) ( $s['estimated_savings_usd'] ?? 0 ), 2 ),
			__( 'Input read from cache', 'rtac' ) => number_format_i18n( 100 * (float) ( $s['cache_read_share'] ?? 0 ), 1 ) . '%',
		);
		echo '<table class="widefat striped"><tbody>';
		foreach ( $rows as $label => $value ) {
			printf( '<tr><th scope="row">%1$s</th><td>%2$s</td></tr>', esc_html( $label ), esc_html( $value ) );
		}
		echo '</tbody></table>';
		self::render_languages( is_array( $s['languages'] ?? null ) ? $s['languages'] : array() );
		echo '</div>';
	}

	/**
	 * Per visitor language: questions answered from that language's own pages,
	 * from another language's pages, or from no page (pinned answers at most).
	 * Sorted by the share not answered from own pages: the top rows are the
	 * languages whose pages are missing.
	 *
	 * @return array<int, array{lang:string, turns:int, own:int, other:int, none:int, gap:float}>
	 */
	public static function language_gaps( array $languages ): array {
		$rows = array();
		foreach ( $languages as $code => $counts ) {
			$lang = Rtac_Language::normalize( (string) $code );
			if ( '' === $lang || ! is_array( $counts ) ) {
				continue;
			}
			$own   = max( 0, (int) ( $counts['own'] ?? 0 ) );
			$other = max( 0, (int) ( $counts['other'] ?? 0 ) );
			$none  = max( 0, (int) ( $counts['none'] ?? 0 ) );
			$turns = max( (int) ( $counts['turns'] ?? 0 ), $own + $other + $none );
			if ( 0 === $own + $other + $none ) {
				continue; // No answer of this language says where it came from yet.
			}
			$rows[] = array(
				'lang'  => $lang,
				'turns' => $turns,
				'own'   => $own,
				'other' => $other,
				'none'  => $none,
				'gap'   => ( $other + $none ) / $turns,
			);
		}
		usort(
			$rows,
			static function ( $a, $b ) {
				return array( $b['gap'], $b['turns'], $a['lang'] ) <=> array( $a['gap'], $a['turns'], $b['lang'] );
			}
		);
		return $rows;
	}

	private static function render_languages( array $languages ): void {
		$rows = self::language_gaps( $languages );
		if ( ! $rows ) {
			return;
		}
		echo '<div class="rtac-languages"><h3>' . esc_html__( 'Pages to translate', 'rtac' ) . '</h3>';
		echo '<p class="description">' . esc_html__( 'How questions in each language were answered: from pages in the visitor\'s own language, from pages in another language, or from no page at all. A language with many answers from other languages or from nothing is missing pages: translate the pages those visitors need.', 'rtac' ) . '</p>';
		echo '<table class="widefat striped"><thead><tr>';
		foreach ( array( __( 'Language', 'rtac' ), __( 'Questions', 'rtac' ), __( 'Own pages', 'rtac' ), __( 'Other language', 'rtac' ), __( 'No page', 'rtac' ) ) as $i => $head ) {
			printf( '<th scope="col"%1$s>%2$s</th>', 0 === $i ? '' : ' class="num"', esc_html( $head ) );
		}
		echo '</tr></thead><tbody>';
		foreach ( $rows as $row ) {
			$gap = $row['other'] + $row['none'];
			printf(
				'<tr data-lang="%1$s"%2$s><th scope="row"><a href="%3$s" title="%4$s">%5$s</a></th><td class="num">%6$s</td><td class="num">%7$s</td><td class="num">%8$s</td><td class="num">%9$s</td></tr>',
				esc_attr( $row['lang'] ),
				$gap > 0 ? ' class="rtac-gap"' : '',
				esc_url( Rtac_Admin::page_url( Rtac_Admin_Unanswered::PAGE, array( 'lang' => $row['lang'] ) ) ),
				/* translators: %s: language code. */
				esc_attr( sprintf( __( 'Open unanswered questions in %s', 'rtac' ), $row['lang'] ) ),
				esc_html( $row['lang'] ),
				esc_html( number_format_i18n( $row['turns'] ) ),
				esc_html( number_format_i18n( $row['own'] ) ),
				esc_html( number_format_i18n( $row['other'] ) ),
				esc_html( number_format_i18n( $row['none'] ) )
			);
		}
		echo '</tbody></table>';
		$top = $rows[0];
		if ( $top['other'] + $top['none'] > 0 ) {
			printf(
				'<p class="rtac-gap-note">%s</p>',
				esc_html(
					sprintf(
						/* translators: 1: number of questions, 2: number of questions, 3: language code. */
						__( '%1$s of %2$s questions in %3$s were not answered from a page in that language: start translating there.', 'rtac' ),
						number_format_i18n( $top['other'] + $top['none'] ),
						number_format_i18n( $top['turns'] ),
						$top['lang']
					)
				)
			);
		}
		echo '</div>';
	}

	/**
	 * Open questions active in each of the last weeks: a question counts in
	 * every week between its first and its last time asked.
	 *
	 * @return array<string, int> week start (Y-m-d, Monday) => questions, oldest first.
	 */
	public static function per_week( array $items, ?int $now = null ): array {
		$now    = $now ?? time();
		$monday = strtotime( 'monday this week', $now );
		$weeks  = array();
		for ( $i = self::WEEKS - 1; $i >= 0; $i-- ) {
			$weeks[ gmdate( 'Y-m-d', $monday - $i * WEEK_IN_SECONDS ) ] = 0;
		}
		foreach ( $items as $item ) {
			$first = strtotime( (string) ( $item['first_asked'] ?? '' ) );
			$last  = strtotime( (string) ( $item['last_asked'] ?? '' ) );
			if ( ! $first || ! $last ) {
				continue;
			}
			foreach ( array_keys( $weeks ) as $start ) {
				$from = strtotime( $start . ' 00:00:00 UTC' );
				if ( $first < $from + WEEK_IN_SECONDS && $last >= $from ) {
					++$weeks[ $start ];
				}
			}
		}
		return $weeks;
	}

	/** A bar chart as inline SVG; no script, no library. */
	public static function chart( array $weeks ): string {
		$w     = 280;
		$h     = 80;
		$gap   = 6;
		$n     = max( 1, count( $weeks ) );
		$bar   = ( $w - $gap * ( $n - 1 ) ) / $n;
		$max   = max( 1, max( $weeks ? $weeks : array( 0 ) ) );
		$title = __( 'Unanswered questions per week', 'rtac' );
		$svg   = sprintf( '<svg class="rtac-chart" viewBox="0 0 %1$d %2$d" width="100%%" height="%2$d" role="img" aria-labelledby="rtac-chart-title"><title id="rtac-chart-title">%3$s</title>', $w, $h + 14, esc_html( $title ) );
		$i     = 0;
		foreach ( $weeks as $start => $count ) {
			$bh    = (int) round( ( $h - 12 ) * $count / $max );
			$x     = $i * ( $bar + $gap );
			/* translators: 1: week start date, 2: number of questions. */
			$label = sprintf( __( 'Week of %1$s: %2$d', 'rtac' ), $start, $count );
			$svg  .= sprintf(
				'<g><title>%1$s</title><rect x="%2$.1f" y="%3$d" width="%4$.1f" height="%5$d" rx="2" fill="currentColor" opacity="0.75"></rect><text x="%6$.1f" y="%7$d" font-size="9" text-anchor="middle" fill="currentColor">%8$d</text><text x="%6$.1f" y="%9$d" font-size="8" text-anchor="middle" fill="currentColor" opacity="0.7">%10$s</text></g>',
				esc_html( $label ),
				$x,
				$h - $bh,
				$bar,
				$bh,
				$x + $bar / 2,
				max( 9, $h - $bh - 3 ),
				(int) $count,
				$h + 11,
				esc_html( wp_date( _x( 'M j', 'short date of a week in the chart', 'rtac' ), (int) strtotime( $start . ' 12:00:00 UTC' ) ) )
			);
			++$i;
		}
		return $svg . '</svg>';
	}
}
